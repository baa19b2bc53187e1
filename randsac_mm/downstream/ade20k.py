"""ADE20K (ADEChallengeData2016) with its on-disk layout checked."""
import os
import os.path as osp

from mmseg.datasets import ADE20KDataset
from mmseg.registry import DATASETS
from PIL import Image

from ..datasets.decoded_images import NamesUndecodableImages
from ..datasets.layout_errors import DataLayoutError, require_files

__all__ = ['CheckedADE20KDataset']

ADE20K_LAYOUT = """  <data_root>/images/{training,validation}/ADE_*.jpg
  <data_root>/annotations/{training,validation}/ADE_*.png
  (data_root is usually data/ade/ADEChallengeData2016)"""


@DATASETS.register_module()
class CheckedADE20KDataset(NamesUndecodableImages, ADE20KDataset):
    """mmseg's ``ADE20KDataset``; a missing or malformed data root fails at
    build time with the expected layout: the split's image and annotation
    folders must exist, hold images, and pair up by file stem, and each
    annotation must be its image's size (read from the files' headers).
    A label beyond the classes (other than ``ignore_index``) is refused
    when its sample is loaded, naming the file: cross-entropy would fail on
    it in training, and evaluation would ignore its pixels silently.

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
        data_list = super().load_data_list()
        self._check_sizes(data_list)
        return data_list

    def _check_sizes(self, data_list):
        """Refuses annotations of another size than their images (labels
        misaligned to pixels), naming the first and the count."""
        wrong = []
        for info in data_list:
            with Image.open(info['img_path']) as image, \
                    Image.open(info['seg_map_path']) as labels:
                if image.size != labels.size:
                    wrong.append((info['seg_map_path'], labels.size,
                                  image.size))
        if wrong:
            path, got, want = wrong[0]
            raise DataLayoutError(
                f'{self.NAME}: {len(wrong)} annotations are not the size of '
                f'their image (first: {path} is {got[0]}x{got[1]}, its image '
                f'{want[0]}x{want[1]}); each annotation labels its image\'s '
                'pixels one to one')

    def prepare_data(self, idx):
        data = super().prepare_data(idx)
        samples = data.get('data_samples') if isinstance(data, dict) \
            else None
        if samples is not None and 'gt_sem_seg' in samples:
            labels = samples.gt_sem_seg.data
            classes = len(self.metainfo['classes'])
            bad = labels[(labels >= classes) & (labels != self.ignore_index)]
            if bad.numel():
                reduced = ' after reduce_zero_label' if \
                    self.reduce_zero_label else ''
                raise DataLayoutError(
                    f'{self.NAME}: {samples.seg_map_path} holds label '
                    f'{int(bad.max())}{reduced}, beyond its {classes} classes '
                    f'(0 to {classes - 1}; {self.ignore_index} is ignored)')
        return data
