"""The digit scenes of the small transfer study (written by ``python -m
experiments.digit_scenes``) as mmseg reads them: ADE20K's folder layout,
grey PNG scenes, a class per pixel with background as class 0."""
from mmseg.registry import DATASETS

from ..datasets.grey_images import DIGIT_CLASSES
from .ade20k import CheckedADE20KDataset

__all__ = ['DIGIT_SCENE_CLASSES', 'DigitScenesDataset']

# Class 0 is the background, class 1 + d the digit d (the annotation PNGs'
# values); COCO's categories of the same scenes are the digits alone.
DIGIT_SCENE_CLASSES = ('background', ) + DIGIT_CLASSES

DIGIT_SCENES_LAYOUT = """  <data_root>/images/{training,validation}/scene_*.png
  <data_root>/annotations/{training,validation}/scene_*.png
  (python -m experiments.digit_scenes --out <data_root> writes them)"""


@DATASETS.register_module()
class DigitScenesDataset(CheckedADE20KDataset):
    """Segmentation of the digit scenes: ADE20K's checked layout with PNG
    images and 11 classes, the background one of them (not ignored, as
    ADE20K's ``reduce_zero_label`` would)."""

    METAINFO = dict(
        classes=DIGIT_SCENE_CLASSES,
        palette=[[0, 0, 0]] + [[(37 * i) % 256, (97 * i) % 256,
                                (157 * i) % 256] for i in range(1, 11)])
    NAME = 'digit scenes'
    LAYOUT = DIGIT_SCENES_LAYOUT

    def __init__(self, img_suffix='.png', seg_map_suffix='.png',
                 reduce_zero_label=False, **kwargs):
        super().__init__(img_suffix=img_suffix,
                         seg_map_suffix=seg_map_suffix,
                         reduce_zero_label=reduce_zero_label, **kwargs)
