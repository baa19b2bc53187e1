from .non_finite_loss_hook import NonFiniteLossHook
from .per_sample_seed_hook import PerSampleSeedHook

__all__ = ['NonFiniteLossHook', 'PerSampleSeedHook']
