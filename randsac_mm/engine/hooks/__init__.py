from .non_finite_loss_hook import NonFiniteLossHook

__all__ = ['NonFiniteLossHook']
