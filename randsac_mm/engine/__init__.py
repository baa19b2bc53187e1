from .autocast_optim_wrapper import AutocastOptimWrapper
from .hooks import NonFiniteLossHook, PerSampleSeedHook
from .layer_decay_constructor import BackboneLayerDecayOptimWrapperConstructor

__all__ = ['AutocastOptimWrapper', 'BackboneLayerDecayOptimWrapperConstructor',
           'NonFiniteLossHook', 'PerSampleSeedHook']
