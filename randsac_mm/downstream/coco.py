"""COCO instances with the annotation file, the image folder and the
images checked, and what mmdet leaves out said."""
import json

from mmdet.datasets import CocoDataset
from mmdet.registry import DATASETS
from mmengine.logging import print_log

from ..datasets.decoded_images import NamesUndecodableImages
from ..datasets.image_files import SHOWN, check_image_files
from ..datasets.layout_errors import DataLayoutError, require_files

__all__ = ['CheckedCocoDataset']

COCO_LAYOUT = """  <data_root>/annotations/instances_{train,val}2017.json
      (a JSON object with 'images', 'annotations' and 'categories')
  <data_root>/{train,val}2017/*.jpg
  (data_root is usually data/coco/)"""


@DATASETS.register_module()
class CheckedCocoDataset(NamesUndecodableImages, CocoDataset):
    """mmdet's ``CocoDataset``; a missing or malformed data root fails at
    build time with the expected layout instead of a bare file error, and
    so does an image the annotations list and the disk lacks (or an empty
    one). What mmdet leaves out without a word is logged: boxes outside
    their image or of no area, and images ``filter_cfg`` drops (no
    annotation of the classes, or smaller than ``min_size``).

    Attributes:
        NAME (str): the data set, for the messages.
    """
    NAME = 'COCO'

    def load_data_list(self):
        require_files(self.data_root,
                      [self.ann_file, self.data_prefix.get('img', '')],
                      self.NAME, COCO_LAYOUT)
        try:
            with open(self.ann_file) as f:
                content = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            raise DataLayoutError(
                f'{self.NAME}: {self.ann_file!r} is not valid JSON ({e}). '
                f'Expected:\n{COCO_LAYOUT}') from e
        missing = [k for k in ('images', 'annotations', 'categories')
                   if not isinstance(content, dict) or k not in content]
        if missing:
            raise DataLayoutError(
                f'{self.NAME}: {self.ann_file!r} lacks the keys {missing}. '
                f'Expected:\n{COCO_LAYOUT}')
        self._no_area = []  # files of boxes mmdet skips (parse_data_info)
        data_list = super().load_data_list()
        check_image_files([d['img_path'] for d in data_list], self.NAME,
                          self.data_prefix.get('img', ''))
        if self._no_area:
            print_log(f'{self.NAME}: left out {len(self._no_area)} boxes '
                      'outside their image or of no area (as mmdet does), in '
                      f'{", ".join(sorted(set(self._no_area))[:SHOWN])}',
                      logger='current')
        return data_list

    def parse_data_info(self, raw_data_info):
        # mmdet skips a box outside its image or of no area without a word:
        # counted (the boxes it was given of the classes, less those kept).
        data_info = super().parse_data_info(raw_data_info)
        given = sum(not ann.get('ignore', False) and
                    ann['category_id'] in self.cat_ids
                    for ann in raw_data_info['raw_ann_info'])
        self._no_area += [raw_data_info['raw_img_info']['file_name']] * (
            given - len(data_info['instances']))
        return data_info

    def filter_data(self):
        kept = super().filter_data()
        left_out = len(self.data_list) - len(kept)
        if left_out:
            print_log(f'{self.NAME}: left out {left_out} of '
                      f'{len(self.data_list)} images by filter_cfg '
                      f'({self.filter_cfg}: no annotation of the classes, or '
                      'smaller than min_size)',
                      logger='current')
        return kept
