from .non_finite_loss_hook import NonFiniteLossHook
from .per_sample_seed_hook import PerSampleSeedHook
from .random_state_hook import RandomStateHook

__all__ = ['NonFiniteLossHook', 'PerSampleSeedHook', 'RandomStateHook']
