"""Limits of other libraries' classes that take a bad value in silence,
each one a user of ours has met, checked before the build. Our own classes
guard their arguments themselves (``randsac_mm.argument_limits``); a key
none of them names is left to its class.

- mmpretrain's ``VisionTransformer`` (the supervised and demo classifiers'
  backbone) takes ``drop_path_rate`` or ``drop_rate`` 1.0, and the loss is
  NaN at the first iteration.
- ``optim_wrapper.paramwise_cfg.layer_decay_rate``: mmpretrain's
  ``LearningRateDecayOptimWrapperConstructor`` (the fine-tune configs')
  took 0 and froze every layer but the last in silence, and -0.5 made the
  rates negative; mmengine's ``DefaultOptimWrapperConstructor`` ignores
  the key in silence, so a rate given to it decays nothing.
"""
from ..argument_limits import (
    LAYER_DECAY_RATE,
    RATE,
    check_argument,
    unread_argument,
)
from .config_kinds import registered_class

__all__ = ['check_model_limits', 'check_optim_wrapper_limits']

LAYER_DECAY = 'paramwise_cfg.layer_decay_rate'


def _typed_nodes(tree, place=''):
    """(place, dict) of each dict with a ``type`` in a config tree, its
    place relative to the tree ('' for the tree, 'backbone.')."""
    if isinstance(tree, dict):
        if 'type' in tree:
            yield place, tree
        for key, value in tree.items():
            yield from _typed_nodes(value, f'{place}{key}.')
    elif isinstance(tree, (list, tuple)):
        for index, value in enumerate(tree):
            yield from _typed_nodes(value, f'{place}{index}.')


def check_model_limits(cfg):
    """Raises ``ArgumentOutOfRange`` (its argument's place relative to
    ``model``) for a rate of mmpretrain's ``VisionTransformer`` in
    ``cfg.model`` outside [0, 1); our subclasses check their own."""
    from mmengine.registry import MODELS
    from mmpretrain.models import VisionTransformer

    from ..models import RandSACViT
    for place, node in _typed_nodes(cfg.model):
        try:
            cls = registered_class(cfg, MODELS, node['type'])
        except (ImportError, KeyError):  # another scope's: its build says
            continue
        if isinstance(cls, type) and issubclass(cls, VisionTransformer) \
                and not issubclass(cls, RandSACViT):
            for rate in ('drop_path_rate', 'drop_rate'):
                if node.get(rate) is not None:
                    check_argument(f'{place}{rate}', node[rate], RATE)


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
        raise unread_argument(
            LAYER_DECAY, rate, "mmengine's DefaultOptimWrapperConstructor",
            "layer-wise decay: constructor='LearningRateDecayOptimWrapper"
            "Constructor'")
