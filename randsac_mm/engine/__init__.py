from .autocast_optim_wrapper import AutocastOptimWrapper
from .fsdp_wrap_policy import transformer_layer_wrap_policy
from .fused_adamw_constructor import FusedAdamWConstructor
from .hooks import NonFiniteLossHook, PerSampleSeedHook, RandomStateHook

__all__ = ['AutocastOptimWrapper', 'FusedAdamWConstructor',
           'NonFiniteLossHook', 'PerSampleSeedHook', 'RandomStateHook',
           'transformer_layer_wrap_policy']
