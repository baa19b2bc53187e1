"""ADE20K (ADEChallengeData2016) with its on-disk layout checked."""
import os.path as osp

from mmseg.datasets import ADE20KDataset
from mmseg.registry import DATASETS
from PIL import Image

from ..datasets.decoded_images import NamesUndecodableImages
from ..datasets.image_files import check_image_files, walk_images
from ..datasets.layout_errors import DataLayoutError, require_files

__all__ = ['CheckedADE20KDataset']

ADE20K_LAYOUT = """  <data_root>/images/{training,validation}/ADE_*.jpg
  <data_root>/annotations/{training,validation}/ADE_*.png
  (data_root is usually data/ade/ADEChallengeData2016)"""


@DATASETS.register_module()
class CheckedADE20KDataset(NamesUndecodableImages, ADE20KDataset):
    """mmseg's ``ADE20KDataset``; a missing or malformed data root fails at
    build time with the expected layout: the split's image and annotation
    folders must exist, hold images, and pair up by file stem; its files
    are walked and checked as our image folders' are
    (``randsac_mm.datasets.image_files``: hidden files and repeated
    folders left out, missing, unreadable and empty files refused), and
    each annotation must be its image's size (read from the headers).
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
        if self.ann_file:  # a list of names: mmseg's reading
            data_list = super().load_data_list()
        else:  # the folder walked as our image folders are (hidden, links)
            data_list = sorted(  # in mmseg's order
                (self._data_info(img_dir, seg_dir, path) for path in
                 walk_images(img_dir, (self.img_suffix.lower(), ),
                             self.NAME)), key=lambda info: info['img_path'])
        if not data_list:
            raise DataLayoutError(
                f'{self.NAME}: {img_dir!r} holds no {self.img_suffix} '
                f'images. Expected:\n{self.LAYOUT}')
        unmatched = [osp.relpath(info['seg_map_path'], seg_dir)
                     for info in data_list
                     if not osp.lexists(info['seg_map_path'])]
        if unmatched:
            raise DataLayoutError(
                f'{self.NAME}: {len(unmatched)} images have no annotation '
                f'in {seg_dir!r} (first: {unmatched[0]!r} is missing); each '
                f'image needs one of its name ending in {self.seg_map_suffix}'
                ' there')
        check_image_files([info[key] for info in data_list
                           for key in ('img_path', 'seg_map_path')],
                          self.NAME, self.data_root)
        self._check_sizes(data_list)
        return data_list

    def _data_info(self, img_dir, seg_dir, img_path):
        """mmseg's item of one image (``BaseSegDataset.load_data_list``):
        its annotation is the same relative path with the annotation
        suffix."""
        relative = osp.relpath(img_path, img_dir)
        stem = relative[:-len(self.img_suffix)]
        return dict(img_path=img_path,
                    seg_map_path=osp.join(seg_dir,
                                          stem + self.seg_map_suffix),
                    label_map=self.label_map,
                    reduce_zero_label=self.reduce_zero_label, seg_fields=[])

    def _check_sizes(self, data_list):
        """Refuses annotations of another size than their images (labels
        misaligned to pixels), naming the first and the count; a file whose
        header is not an image's is named (its size read, not decoded)."""
        wrong = []
        for info in data_list:
            image, labels = (self._image_size(info[key])
                             for key in ('img_path', 'seg_map_path'))
            if image != labels:
                wrong.append((info['seg_map_path'], labels, image))
        if wrong:
            path, got, want = wrong[0]
            raise DataLayoutError(
                f'{self.NAME}: {len(wrong)} annotations are not the size of '
                f'their image (first: {path} is {got[0]}x{got[1]}, its image '
                f'{want[0]}x{want[1]}); each annotation labels its image\'s '
                'pixels one to one')

    def _image_size(self, path):
        try:
            with Image.open(path) as image:
                return image.size
        except (OSError, SyntaxError) as error:  # PIL's unreadable headers
            raise DataLayoutError(
                f'{self.NAME}: {path} could not be read as an image '
                f'({type(error).__name__}); replace or remove it') from error

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
