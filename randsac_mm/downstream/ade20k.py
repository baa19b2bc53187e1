"""ADE20K (ADEChallengeData2016) with its on-disk layout checked."""
import os
import os.path as osp

from mmseg.datasets import ADE20KDataset
from mmseg.registry import DATASETS

from ..datasets.layout_errors import DataLayoutError, require_files

__all__ = ['CheckedADE20KDataset']

ADE20K_LAYOUT = """  <data_root>/images/{training,validation}/ADE_*.jpg
  <data_root>/annotations/{training,validation}/ADE_*.png
  (data_root is usually data/ade/ADEChallengeData2016)"""


@DATASETS.register_module()
class CheckedADE20KDataset(ADE20KDataset):
    """mmseg's ``ADE20KDataset``; a missing or malformed data root fails at
    build time with the expected layout: the split's image and annotation
    folders must exist, hold images, and pair up by file stem.

    Attributes:
        NAME (str), LAYOUT (str): the data set and its layout, for the
            messages (a subclass in the same folder layout sets its own).
    """
    NAME = 'ADE20K'
    LAYOUT = ADE20K_LAYOUT

    def load_data_list(self):
        img_dir = self.data_prefix.get('img_path', '')
        seg_dir = self.data_prefix.get('seg_map_path', '')
        require_files(self.data_root, [img_dir, seg_dir], self.NAME,
                      self.LAYOUT)
        images = {osp.splitext(f)[0] for f in os.listdir(img_dir)
                  if f.endswith(self.img_suffix)}
        masks = {osp.splitext(f)[0] for f in os.listdir(seg_dir)
                 if f.endswith(self.seg_map_suffix)}
        if not images:
            raise DataLayoutError(
                f'{self.NAME}: {img_dir!r} holds no {self.img_suffix} '
                f'images. Expected:\n{self.LAYOUT}')
        unmatched = sorted(images - masks)
        if unmatched:
            raise DataLayoutError(
                f'{self.NAME}: {len(unmatched)} images have no '
                f'{self.seg_map_suffix} annotation in {seg_dir!r} (first: '
                f'{unmatched[0]!r}). Expected:\n{self.LAYOUT}')
        return super().load_data_list()
