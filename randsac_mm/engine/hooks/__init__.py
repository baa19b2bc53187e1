from .atomic_checkpoint_hook import AtomicCheckpointHook
from .compile_loss_hook import CompileLossHook, compile_loss
from .mean_logs_hook import MeanLogsOverProcessesHook
from .non_finite_loss_hook import NonFiniteLossHook
from .per_sample_seed_hook import PerSampleSeedHook
from .preemption_hook import PreemptionHook
from .random_state_hook import RandomStateHook

__all__ = ['AtomicCheckpointHook', 'CompileLossHook',
           'MeanLogsOverProcessesHook', 'NonFiniteLossHook',
           'PerSampleSeedHook', 'PreemptionHook', 'RandomStateHook',
           'compile_loss']
