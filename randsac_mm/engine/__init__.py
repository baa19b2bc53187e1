from .autocast_optim_wrapper import AutocastOptimWrapper
from .hooks import NonFiniteLossHook, PerSampleSeedHook

__all__ = ['AutocastOptimWrapper', 'NonFiniteLossHook', 'PerSampleSeedHook']
