from .autocast_optim_wrapper import AutocastOptimWrapper
from .layer_decay_constructor import BackboneLayerDecayOptimWrapperConstructor

__all__ = ['AutocastOptimWrapper', 'BackboneLayerDecayOptimWrapperConstructor']
