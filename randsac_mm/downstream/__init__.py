"""What only the downstream transfers need: the ViT feature pyramid in
mmseg's and mmdet's registries (the class itself is a pretraining-stack
backbone, ``randsac_mm.models.backbones.RandSACViTPyramid``), the checked
ADE20K and COCO data sets, the digit scenes of the small transfer study,
Mask R-CNN's two heads that feed mmcv's ops float32 under bf16 autocast,
and the layer-decay constructor for mmseg's and mmdet's models (the
checkpoint converter is ``randsac_mm.checkpoint.conversion``).

Segmentation and detection configs import it with
``custom_imports=dict(imports=['randsac_mm.downstream'])``; it registers
into mmseg's and mmdet's registries and imports ``randsac_mm.registration``
(the pyramid extends the pretraining encoder).
"""
from ..version_check import DOWNSTREAM, check_versions

check_versions(DOWNSTREAM)  # mmcv's compiled ops, mmseg and mmdet

# After the check, so a missing op is named rather than raised from mmdet.
from mmdet.registry import MODELS as MMDET_MODELS  # noqa: E402
from mmseg.registry import MODELS as MMSEG_MODELS  # noqa: E402

from .. import registration  # noqa: E402,F401  (the pretraining modules)
from ..models.backbones import RandSACViTPyramid  # noqa: E402
from .ade20k import CheckedADE20KDataset  # noqa: E402
from .coco import CheckedCocoDataset  # noqa: E402
from .digit_scenes import DigitScenesDataset  # noqa: E402
from .float32_mmcv_ops import (  # noqa: E402
    Float32ProposalRPNHead,
    Float32RoIExtractor,
)
from .layer_decay_constructor import (  # noqa: E402
    BackboneLayerDecayOptimWrapperConstructor,
)

MMSEG_MODELS.register_module(module=RandSACViTPyramid)
MMDET_MODELS.register_module(module=RandSACViTPyramid)

__all__ = ['BackboneLayerDecayOptimWrapperConstructor', 'CheckedADE20KDataset',
           'CheckedCocoDataset', 'DigitScenesDataset',
           'Float32ProposalRPNHead', 'Float32RoIExtractor',
           'RandSACViTPyramid']
