"""RandSAC for OpenMMLab.

Importing the package itself loads nothing heavy, so its framework-free
core ``randsac_mm.segments`` (numpy only) imports without torch. What
registers modules is imported by the configs, with ``custom_imports``:

- ``randsac_mm.registration``: pretraining, linear probe and fine-tuning
  (mmpretrain registries; no mmseg or mmdet);
- ``randsac_mm.downstream``: UperNet on ADE20K and Mask R-CNN on COCO
  (mmseg and mmdet registries; imports the former too).
"""
from .version import __version__

__all__ = ['__version__']
