"""Limits of other libraries' classes that take a bad value in silence,
each one a user of ours has met, checked before the build. Our own classes
guard their arguments themselves (``randsac_mm.argument_limits``); a key
neither names is left to its class."""
from ..argument_limits import LAYER_DECAY_RATE, check_argument

__all__ = ['check_optim_wrapper_limits']


def _mmpretrain_layer_decay():
    from mmpretrain.engine.optimizers import (
        LearningRateDecayOptimWrapperConstructor,
    )
    return LearningRateDecayOptimWrapperConstructor


# (the optimizer constructor's class, imported when checked; the limits of
# its arguments, as optim_wrapper writes them).
OPTIM_WRAPPER_LIMITS = (
    # mmpretrain's layer-wise decay (the fine-tune configs'): 0 froze every
    # layer but the last in silence, and -0.5 made the rates negative.
    (_mmpretrain_layer_decay,
     {'paramwise_cfg.layer_decay_rate': LAYER_DECAY_RATE}),
)


def check_optim_wrapper_limits(optim_wrapper):
    """Raises ``ArgumentOutOfRange`` for a value of ``optim_wrapper`` (a
    config) that its constructor, a class of ``OPTIM_WRAPPER_LIMITS``,
    would take in silence. Call it in the config's registry scope.

    Args:
        optim_wrapper (dict): the config's ``optim_wrapper``.
    """
    from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS
    name = optim_wrapper.get('constructor', 'DefaultOptimWrapperConstructor')
    with OPTIM_WRAPPER_CONSTRUCTORS.switch_scope_and_registry(None) as \
            registry:
        constructor = registry.get(name) if isinstance(name, str) else name
    for owner, limits in OPTIM_WRAPPER_LIMITS:
        if constructor is not owner():
            continue
        for argument, limit in limits.items():
            part, key = argument.split('.')
            value = (optim_wrapper.get(part) or {}).get(key)
            if value is not None:
                check_argument(argument, value, limit)
