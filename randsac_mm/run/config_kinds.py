"""What kind of config a tool was given, told by registered checks.

A kind is one registered :class:`ConfigKind`: its :meth:`~ConfigKind.
matches` looks at the config, and at the class its ``model.type`` names in
the config's scope (``model_class``), never at the text of a type name.
The first registered kind that matches is the config's kind. A new kind
is one class in one file::

    @register_config_kind('depth')
    class DepthConfig(ConfigKind):
        description = 'a depth-estimation config'
        trainable = True

        def matches(self, cfg, model_class):
            return model_class is not None and issubclass(
                model_class, BaseDepthEstimator)

Tools say which kinds they take (``require_kind``); ``tools/train.py``
takes every ``trainable`` kind.
"""
import importlib
import inspect

from ..cli.errors import UserError
from ..extension_registry import Registry

__all__ = ['CONFIG_KINDS', 'ConfigKind', 'ModelBaseKind', 'check_collate',
           'config_kind', 'config_scope', 'describe_kind', 'in_scope',
           'lookup', 'model_class', 'register_config_kind',
           'registered_class', 'require_kind', 'testable_kinds',
           'trainable_kinds']

# config kind name -> ConfigKind subclass, in the order they are tried.
CONFIG_KINDS = Registry('config kind')


def register_config_kind(name):
    """Class decorator: makes a :class:`ConfigKind` subclass the kind
    ``name``, tried after the kinds registered before it."""
    return lambda cls: CONFIG_KINDS.register_class(name, cls, ConfigKind)


class ConfigKind:
    """One kind of config.

    Attributes:
        name (str): its name (set by the decorator).
        description (str): how messages call it ('a classifier config').
        trainable (bool): ``tools/train.py`` trains it.
        testable (bool): ``tools/test.py`` tests it (its model has a test
            loop).
        stacked_batches (bool): its model takes batches stacked by
            ``default_collate`` (``SelfSupDataPreprocessor``): mmengine's
            default ``pseudo_collate`` would give it a list of images.
    """
    name = None
    description = None
    trainable = False
    testable = False
    stacked_batches = False

    def matches(self, cfg, model_class):
        """Whether ``cfg`` is of this kind.

        Args:
            cfg (mmengine.Config): the config.
            model_class (type | None): the class ``cfg.model`` builds
                (``model_class(cfg)``); None without a model.
        """
        raise NotImplementedError


def _subclass_of(model_class, module, name):
    """Whether ``model_class`` subclasses ``module.name`` (False when that
    library is not installed: then no config of it can be built either)."""
    if model_class is None:
        return False
    try:
        base = getattr(importlib.import_module(module), name)
    except ImportError:
        return False
    return issubclass(model_class, base)


@register_config_kind('data')
class DataConfig(ConfigKind):
    description = 'a data config (dataloaders, no model)'

    def matches(self, cfg, model_class):
        return model_class is None and any(
            key.endswith('_dataloader') for key in cfg)


@register_config_kind('runtime')
class RuntimeConfig(ConfigKind):
    description = 'a runtime config (hooks and environment, no model, no ' \
        'data)'

    def matches(self, cfg, model_class):
        return model_class is None


class ModelBaseKind(ConfigKind):
    """A kind told by the base class its model subclasses.

    Attributes:
        model_base (tuple[str, str]): (module, class name) of that base;
            a library that is not installed matches no config.
    """
    model_base = None

    def matches(self, cfg, model_class):
        return _subclass_of(model_class, *self.model_base)


@register_config_kind('pretraining')
class PretrainingConfig(ModelBaseKind):
    description = 'a self-supervised pretraining config (RandSAC, MAE)'
    trainable = True
    stacked_batches = True
    model_base = ('mmpretrain.models', 'BaseSelfSupervisor')


@register_config_kind('classifier')
class ClassifierConfig(ModelBaseKind):
    description = 'a classifier config (linear probe, fine-tune, supervised)'
    trainable = True
    testable = True
    model_base = ('mmpretrain.models', 'BaseClassifier')


@register_config_kind('segmentation')
class SegmentationConfig(ModelBaseKind):
    description = 'a segmentation config (mmseg)'
    trainable = True
    testable = True
    model_base = ('mmseg.models.segmentors', 'BaseSegmentor')


@register_config_kind('detection')
class DetectionConfig(ModelBaseKind):
    description = 'a detection config (mmdet)'
    trainable = True
    testable = True
    model_base = ('mmdet.models.detectors', 'BaseDetector')


def config_scope(cfg):
    """The registry scope ``cfg``'s builds use: its ``default_scope``, else
    mmpretrain's."""
    return cfg.get('default_scope') or 'mmpretrain'


def in_scope(cfg):
    """The config's registry scope (:func:`config_scope`) for a block of
    builds."""
    from mmengine.registry import DefaultScope
    return DefaultScope.overwrite_default_scope(config_scope(cfg))


def lookup(registry, kind, scope):
    """The one way to find what a ``type`` names: (the class or builder
    function registered under ``kind``, the registry that builds it), as a
    build of ``registry`` (mmengine's ``MODELS``, ``VISBACKENDS``...) finds
    them in ``scope`` (None: the current one). A root registry alone knows
    only its own; a build switches to the scope's (mmpretrain's, mmseg's).
    A class given as itself (new-style configs) is itself.

    Returns:
        tuple: (type | Callable | None, Registry); None when nothing is
        registered as ``kind``.
    """
    if not isinstance(kind, str):  # nothing to look up, in any scope
        return kind, registry
    with registry.switch_scope_and_registry(scope) as scoped:
        return scoped.get(kind), scoped


def registered_class(cfg, registry, kind):
    """What ``kind`` names in ``registry`` in the config's scope
    (:func:`lookup`).

    Returns:
        type | Callable | None: None when nothing is registered as ``kind``.
    """
    return lookup(registry, kind, config_scope(cfg))[0]


def model_class(cfg):
    """The class ``cfg.model`` builds (:func:`registered_class`), or None
    without a model.

    Raises:
        UserError: ``model.type`` names nothing registered there.
    """
    model = cfg.get('model')
    if model is None:
        return None
    kind = model.get('type') if hasattr(model, 'get') else None
    from mmengine.registry import MODELS

    import randsac_mm.registration  # noqa: F401  (our types, mmpretrain's)
    scope = config_scope(cfg)
    try:
        found = registered_class(cfg, MODELS, kind) if isinstance(
            kind, (str, type)) else None
    except ImportError as e:
        raise UserError(f'config: its scope {scope!r} needs a package that '
                        f'is not installed ({e}); for segmentation and '
                        'detection configs: make install-downstream') from e
    if found is None:
        raise UserError(f'config: model.type {kind!r} is not a model '
                        f'registered in scope {scope!r}: a typo, or a '
                        'module missing from custom_imports?')
    if not isinstance(found, type):  # a builder: it says what it returns
        found = inspect.signature(found).return_annotation
        if not isinstance(found, type):
            raise UserError(f'config: model.type {kind!r} is a function '
                            'that does not annotate the class it returns')
    return found


def config_kind(cfg):
    """The name of the first registered kind ``cfg`` matches.

    Raises:
        UserError: no kind matches (the model's class is of none).
    """
    cls = model_class(cfg)
    for name, kind in CONFIG_KINDS.items():
        if kind().matches(cfg, cls):
            return name
    raise UserError(f'config: its model {cls.__name__} is of no kind the '
                    f'tools know ({", ".join(CONFIG_KINDS)})')


def describe_kind(name):
    """How messages call kind ``name``."""
    return CONFIG_KINDS.get(name).description


def trainable_kinds():
    """The kinds ``tools/train.py`` trains."""
    return tuple(name for name, kind in CONFIG_KINDS.items()
                 if kind.trainable)


def testable_kinds():
    """The kinds ``tools/test.py`` tests."""
    return tuple(name for name, kind in CONFIG_KINDS.items()
                 if kind.testable)


def require_kind(cfg, allowed, argument, path=None, hint=None):
    """Raises UserError unless ``cfg`` is one of the ``allowed`` kinds.

    Args:
        cfg (mmengine.Config): the config given.
        allowed (tuple[str]): names of ``CONFIG_KINDS`` the tool takes.
        argument (str): the argument's name, e.g. 'config' or '--data'.
        path (str | None): the file, for the message.
        hint (dict[str, str] | str | None): what to do instead, appended to
            the message: one text, or one per refused kind.

    Returns:
        str: the config's kind.
    """
    import os.path as osp
    kind = config_kind(cfg)
    if kind not in allowed:
        name = osp.basename(path) if path else 'it'
        advice = hint.get(kind) if isinstance(hint, dict) else hint
        raise UserError(
            f'{argument}: {name} is {describe_kind(kind)}; this tool takes '
            + ' or '.join(describe_kind(k) for k in allowed)
            + (f': {advice}' if advice else ''))
    return kind


def check_collate(cfg, loaders, argument):
    """Raises UserError when one of the ``loaders`` (keys of ``cfg``, e.g.
    'train_dataloader') batches without ``default_collate``: mmengine's
    default, ``pseudo_collate``, gives the model a list of images where
    it expects one stacked tensor. Check the configs whose kind has
    ``stacked_batches`` (or data configs a pretraining model reads): the
    other kinds' preprocessors stack the list themselves (mmpretrain's
    ClsDataPreprocessor, mmseg's and mmdet's)."""
    for key in loaders:
        loader = cfg.get(key)
        if loader is None:
            continue
        collate = loader.get('collate_fn')
        if hasattr(collate, 'get'):
            collate = collate.get('type')
        # A name, or the function itself (new-style configs).
        collate = getattr(collate, '__name__', collate)
        if collate != 'default_collate':
            raise UserError(
                f'{argument}: {key}.collate_fn is '
                f'{collate or "not set (pseudo_collate)"}; pretraining '
                'models (SelfSupDataPreprocessor) take stacked batches: set '
                f"{key}.collate_fn=dict(type='default_collate'), as "
                'configs/_base_/datasets/*_randsac.py do')
