"""COCO instances with the annotation file and image folder checked."""
import json

from mmdet.datasets import CocoDataset
from mmdet.registry import DATASETS

from ..datasets.layout_errors import DataLayoutError, require_files

__all__ = ['CheckedCocoDataset']

COCO_LAYOUT = """  <data_root>/annotations/instances_{train,val}2017.json
      (a JSON object with 'images', 'annotations' and 'categories')
  <data_root>/{train,val}2017/*.jpg
  (data_root is usually data/coco/)"""


@DATASETS.register_module()
class CheckedCocoDataset(CocoDataset):
    """mmdet's ``CocoDataset``; a missing or malformed data root fails at
    build time with the expected layout instead of a bare file error."""

    def load_data_list(self):
        require_files(self.data_root,
                      [self.ann_file, self.data_prefix.get('img', '')],
                      'COCO', COCO_LAYOUT)
        try:
            with open(self.ann_file) as f:
                content = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            raise DataLayoutError(
                f'COCO: {self.ann_file!r} is not valid JSON ({e}). '
                f'Expected:\n{COCO_LAYOUT}') from e
        missing = [k for k in ('images', 'annotations', 'categories')
                   if not isinstance(content, dict) or k not in content]
        if missing:
            raise DataLayoutError(
                f'COCO: {self.ann_file!r} lacks the keys {missing}. '
                f'Expected:\n{COCO_LAYOUT}')
        return super().load_data_list()
