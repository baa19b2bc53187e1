"""COCO instances with the annotation file and image folder checked."""
import json
import os.path as osp

from mmdet.datasets import CocoDataset
from mmdet.registry import DATASETS

from .layout_errors import DataLayoutError, require_files

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
        root = self.data_root
        img_dir = self.data_prefix.get('img', '')
        rel = [osp.relpath(p, root) if root else p
               for p in (self.ann_file, img_dir)]
        require_files(root, rel, 'COCO', COCO_LAYOUT)
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
