"""What only the downstream transfers need: the ViT feature pyramid, the
checked ADE20K and COCO data sets and the layer-decay constructor for
mmseg's and mmdet's models (the checkpoint converter is
``randsac_mm.checkpoint.conversion``).

Segmentation and detection configs import it with
``custom_imports=dict(imports=['randsac_mm.downstream'])``; it registers
into mmseg's and mmdet's registries and imports ``randsac_mm.registration``
(the pyramid extends the pretraining encoder).
"""
from ..version_check import DOWNSTREAM, check_versions

check_versions(DOWNSTREAM)  # mmcv's compiled ops, mmseg and mmdet

# After the check, so a missing op is named rather than raised from mmdet.
from .. import registration  # noqa: E402,F401  (the pretraining modules)
from .ade20k import CheckedADE20KDataset  # noqa: E402
from .coco import CheckedCocoDataset  # noqa: E402
from .layer_decay_constructor import (  # noqa: E402
    BackboneLayerDecayOptimWrapperConstructor,
)
from .randsac_vit_pyramid import RandSACViTPyramid  # noqa: E402

__all__ = ['BackboneLayerDecayOptimWrapperConstructor', 'CheckedADE20KDataset',
           'CheckedCocoDataset', 'RandSACViTPyramid']
