from .autocast_optim_wrapper import AutocastOptimWrapper
from .fsdp_wrap_policy import transformer_layer_wrap_policy
from .fused_adamw_constructor import FusedAdamWConstructor
from .hooks import NonFiniteLossHook, PerSampleSeedHook

__all__ = ['AutocastOptimWrapper', 'FusedAdamWConstructor',
           'NonFiniteLossHook', 'PerSampleSeedHook',
           'transformer_layer_wrap_policy']
