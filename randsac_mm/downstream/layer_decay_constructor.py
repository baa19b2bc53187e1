"""Layer-wise learning-rate decay that works for any model with a ViT
backbone, in every OpenMMLab scope.

mmseg's LayerDecayOptimizerConstructor recognises backbones by class name
(BEiT, MAE, ConvNeXt) and silently applies no decay to anything else;
mmpretrain's needs ``get_layer_depth`` on the whole model, which mmseg's
EncoderDecoder and mmdet's detectors do not have. This one asks the
backbone, so the decay really reaches every block of a RandSAC encoder.
"""
from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS
from mmpretrain.engine.optimizers import (
    LearningRateDecayOptimWrapperConstructor,
)

from ..argument_limits import LAYER_DECAY_RATE, check_argument

__all__ = ['BackboneLayerDecayOptimWrapperConstructor']


@OPTIM_WRAPPER_CONSTRUCTORS.register_module()
class BackboneLayerDecayOptimWrapperConstructor(
        LearningRateDecayOptimWrapperConstructor):
    """``paramwise_cfg.layer_decay_rate`` decays the lr from the last
    backbone block (x rate) to the patch embedding (x rate^(L+1)); the neck
    and heads train at the base lr.

    The model must have ``backbone.get_layer_depth(name, prefix)`` (every
    mmpretrain VisionTransformer, so RandSACViT and RandSACViTPyramid).
    """

    def __init__(self, optim_wrapper_cfg, paramwise_cfg=None):
        check_argument('paramwise_cfg.layer_decay_rate',
                       (paramwise_cfg or {}).get('layer_decay_rate', 1.0),
                       LAYER_DECAY_RATE)
        super().__init__(optim_wrapper_cfg, paramwise_cfg)

    def add_params(self, params, module, prefix='', get_layer_depth=None):
        if get_layer_depth is None:
            backbone = getattr(module, 'backbone', None)
            if backbone is None or not hasattr(backbone, 'get_layer_depth'):
                raise TypeError(
                    'BackboneLayerDecayOptimWrapperConstructor needs a model '
                    'whose backbone has get_layer_depth (a VisionTransformer),'
                    f' got {type(module).__name__}')

            def get_layer_depth(name):
                return backbone.get_layer_depth(name, prefix='backbone.')

        super().add_params(params, module, prefix, get_layer_depth)
