"""What only the downstream transfers need: the ViT feature pyramid, the
checked ADE20K and COCO data sets, the layer-decay constructor for mmseg's
and mmdet's models and the checkpoint converter.

Segmentation and detection configs import it with
``custom_imports=dict(imports=['randsac_mm.downstream'])``; it registers
into mmseg's and mmdet's registries and imports ``randsac_mm.mmpretrain``
(the pyramid extends the pretraining encoder).
"""
from .. import mmpretrain  # noqa: F401  (checks the stack, base modules)
from .ade20k import CheckedADE20KDataset
from .coco import CheckedCocoDataset
from .convert import ConversionError, convert_for_downstream
from .layer_decay_constructor import BackboneLayerDecayOptimWrapperConstructor
from .randsac_vit_pyramid import RandSACViTPyramid

__all__ = ['BackboneLayerDecayOptimWrapperConstructor', 'CheckedADE20KDataset',
           'CheckedCocoDataset', 'ConversionError', 'RandSACViTPyramid',
           'convert_for_downstream']
