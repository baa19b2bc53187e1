"""Limits of other libraries' classes that take a bad value in silence,
each one a user of ours has met, checked before the build. Our own classes
guard their arguments themselves (``randsac_mm.argument_limits``); a key
none of them names is left to its class.

One key so far, ``optim_wrapper.paramwise_cfg.layer_decay_rate``:
mmpretrain's ``LearningRateDecayOptimWrapperConstructor`` (the fine-tune
configs') took 0 and froze every layer but the last in silence, and -0.5
made the rates negative; mmengine's ``DefaultOptimWrapperConstructor``
ignores the key in silence, so a rate given to it decays nothing.
"""
from ..argument_limits import (
    LAYER_DECAY_RATE,
    ArgumentOutOfRange,
    check_argument,
)
from .config_kinds import registered_class

__all__ = ['check_optim_wrapper_limits']

LAYER_DECAY = 'paramwise_cfg.layer_decay_rate'


def check_optim_wrapper_limits(cfg):
    """Raises ``ArgumentOutOfRange`` for a layer-decay rate of
    ``cfg.optim_wrapper`` outside (0, 1] given to mmpretrain's or
    mmengine's constructor, or any given to mmengine's, which ignores it."""
    from mmengine.optim import DefaultOptimWrapperConstructor
    from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS
    from mmpretrain.engine.optimizers import (
        LearningRateDecayOptimWrapperConstructor,
    )
    optim_wrapper = cfg.optim_wrapper
    rate = (optim_wrapper.get('paramwise_cfg') or {}).get('layer_decay_rate')
    constructor = registered_class(
        cfg, OPTIM_WRAPPER_CONSTRUCTORS,
        optim_wrapper.get('constructor', 'DefaultOptimWrapperConstructor'))
    if rate is None or constructor not in (
            LearningRateDecayOptimWrapperConstructor,
            DefaultOptimWrapperConstructor):
        return
    check_argument(LAYER_DECAY, rate, LAYER_DECAY_RATE)
    if constructor is DefaultOptimWrapperConstructor:
        raise ArgumentOutOfRange(
            LAYER_DECAY, rate, "it to a constructor that reads it: mmengine's"
            ' DefaultOptimWrapperConstructor ignores it (set '
            "optim_wrapper.constructor='LearningRateDecayOptimWrapperConstru"
            "ctor'), or remove it")
