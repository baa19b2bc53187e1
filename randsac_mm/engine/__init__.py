from .autocast_optim_wrapper import AutocastOptimWrapper
from .fsdp_wrap_policy import transformer_layer_wrap_policy
from .fused_adamw_constructor import FusedAdamWConstructor
from .hooks import (
    CompileLossHook,
    MeanLogsOverProcessesHook,
    NonFiniteLossHook,
    PerSampleSeedHook,
    RandomStateHook,
    compile_loss,
)

__all__ = ['AutocastOptimWrapper', 'CompileLossHook',
           'FusedAdamWConstructor', 'MeanLogsOverProcessesHook',
           'NonFiniteLossHook', 'PerSampleSeedHook', 'RandomStateHook',
           'compile_loss', 'transformer_layer_wrap_policy']
