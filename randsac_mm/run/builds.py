"""A config's parts built as a run builds them, each mistake one line: a
key no class takes names the key, its place in the config and the class
(found from the failed build and the class's signature, not from the
error's text), a value a class refuses (``randsac_mm.argument_limits``)
names its place, a data set with no items or a batch size below 1 is
named. The preflight (``run.preflight``) builds a run's parts with
them; the studies check their configs with them before anything is made.
"""
import copy
import inspect
import os.path as osp

from ..argument_limits import ArgumentOutOfRange
from ..cli.errors import UserError, one_line
from .config_kinds import in_scope
from .foreign_limits import check_model_limits, check_optim_wrapper_limits

__all__ = ['build_error', 'build_model_for_checks',
           'build_segment_generator', 'check_first_item',
           'check_model_builds', 'check_optimizer_builds',
           'refused_argument']


def build_model_for_checks(cfg):
    """The config's model as mmengine's Runner builds it (the top-level
    ``data_preprocessor`` merged in), not initialised: for its keys."""
    from mmengine.registry import MODELS
    model_cfg = copy.deepcopy(cfg.model)
    if cfg.get('data_preprocessor') is not None and hasattr(model_cfg,
                                                            'setdefault'):
        model_cfg.setdefault('data_preprocessor',
                             copy.deepcopy(cfg.data_preprocessor))
    with in_scope(cfg):
        return MODELS.build(model_cfg)


def _innermost_build(error):
    """(class, its config, the arguments it was given) of the innermost
    registry build (mmengine's ``build_from_cfg``) that ``error`` was
    raised through, or None."""
    from mmengine.registry import build_from_cfg
    found, trace = None, error.__traceback__
    while trace is not None:
        local = trace.tb_frame.f_locals
        if trace.tb_frame.f_code is build_from_cfg.__code__ and \
                'obj_cls' in local:
            found = local['obj_cls'], local['cfg'], local['args']
        trace = trace.tb_next
    return found


def _accepted_keys(cls):
    """The keyword arguments ``cls`` takes: its ``__init__``'s and, where
    that passes ``**kwargs`` on, its bases'; None when a class (or a
    registered function) takes any."""
    keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD,
               inspect.Parameter.KEYWORD_ONLY)
    inits = [k.__dict__['__init__'] for k in cls.__mro__
             if '__init__' in k.__dict__] if inspect.isclass(cls) else [cls]
    keys = set()
    for init in inits:
        parameters = inspect.signature(init).parameters.values()
        keys |= {p.name for p in parameters if p.kind in keyword}
        if all(p.kind is not inspect.Parameter.VAR_KEYWORD
               for p in parameters):
            return keys
    return None


def _places(tree, built, path):
    """The paths of the dicts in the config ``tree`` that ``built`` (a
    build's config, defaults merged in) was made from."""
    found = []
    if isinstance(tree, dict):
        if tree.get('type') is not None and all(
                k in built and built[k] == v for k, v in tree.items()):
            found.append(path)
        for name, value in tree.items():
            found += _places(value, built, f'{path}.{name}')
    elif isinstance(tree, (list, tuple)):
        for index, value in enumerate(tree):
            found += _places(value, built, f'{path}.{index}')
    return found


def build_error(tree, path, error):
    """The one line for a TypeError raised while building the config part
    ``tree`` (at ``path``, e.g. 'model'): where a class was given a key it
    does not take (from the failed build and the class's signature), that
    key with the class (``model.backbone.nonsense (RandSACViT): ...``);
    else the part that failed, or the error itself."""
    message = one_line(error)
    built = _innermost_build(error)
    if built is not None:
        cls, cfg, arguments = built
        name = getattr(cls, '__name__', str(cls))
        places = _places(tree, cfg, path)
        accepted = _accepted_keys(cls)
        unknown = [] if accepted is None else [
            k for k in arguments if k not in accepted and k in cfg]
        if places and unknown:
            where = ', '.join(f'{place}.{key} ({name})' for place in places
                              for key in unknown)
            return (f'config: {where}: {message}; remove it or correct its '
                    'name')
        if places:
            path = f'{" / ".join(places)} ({name})'
    return (f'config: {path}: building it raised TypeError: {message} (a '
            'value of the wrong type? --debug shows where)')


def refused_argument(tree, path, error):
    """The one line for an ``ArgumentOutOfRange`` a class raised while the
    config part ``tree`` (at ``path``) was built: the argument at its
    place in the config (``config: model.backbone.drop_path_rate=1.0: give
    a number in [0, 1)``), the place found from the failed build."""
    built = _innermost_build(error)
    places = _places(tree, built[1], path) if built is not None else []
    return (f'config: {places[0] if places else path}.{error.argument}='
            f'{error.value!r}: give {error.allowed}')


def check_model_builds(cfg):
    """The config's model, built as the run will build it, so that a key
    its class does not take is refused before anything is created.

    Returns:
        torch.nn.Module: the model (not initialised).

    Raises:
        UserError: one line naming the key and the class
            (:func:`build_error`).
    """
    try:
        check_model_limits(cfg)
        return build_model_for_checks(cfg)
    except ArgumentOutOfRange as error:
        raise UserError(refused_argument(cfg.model, 'model',
                                         error)) from error
    except TypeError as error:
        raise UserError(build_error(cfg.model, 'model', error)) from error


def build_segment_generator(cfg, argument, path):
    """The layout step of a RandSAC pretraining config, built
    (``RandSACSegmentGenerator.from_config``), for the tools that draw its
    layouts.

    Args:
        cfg (mmengine.Config): the config given.
        argument (str): the argument that named it, e.g. 'config'.
        path (str): its file, for the message.

    Raises:
        UserError: one line naming ``argument`` and the file: a config of
            another kind (a classifier, a data config), or a pretraining
            config whose pipeline draws no layouts (MAE).
    """
    from ..datasets import RandSACSegmentGenerator
    from .config_kinds import require_kind
    require_kind(cfg, ('pretraining', ), argument, path)
    try:
        return RandSACSegmentGenerator.from_config(cfg)
    except ValueError as e:
        raise UserError(f'{argument}: {osp.basename(path)}: {e}') from None


def check_optimizer_builds(cfg, model):
    """The config's ``optim_wrapper`` built for ``model`` as the run builds
    it (its constructor, ``paramwise_cfg``, the optimizer and the wrapper):
    a key no class takes, or a wrapper this machine cannot run, is refused
    before anything is created.

    Raises:
        UserError: one line naming the key and the class
            (:func:`build_error`), or what the wrapper refused.
    """
    from mmengine.optim import build_optim_wrapper

    from ..evaluation.progress import quiet_mmengine_info
    try:
        # Quiet: the run builds it again and logs its parameter groups
        # (about 200 lines for a ViT-B) once, into its log file.
        with in_scope(cfg), quiet_mmengine_info():
            check_optim_wrapper_limits(cfg)
            return build_optim_wrapper(model,
                                       copy.deepcopy(cfg.optim_wrapper))
    except ArgumentOutOfRange as error:
        raise UserError(refused_argument(cfg.optim_wrapper, 'optim_wrapper',
                                         error)) from error
    except TypeError as error:
        raise UserError(build_error(cfg.optim_wrapper, 'optim_wrapper',
                                    error)) from error
    except (AssertionError, RuntimeError, KeyError) as error:
        # mmengine asserts what a wrapper needs (AmpOptimWrapper: a GPU).
        raise UserError(f'config: optim_wrapper '
                        f'({cfg.optim_wrapper.get("type", "OptimWrapper")}):'
                        f' {one_line(error)}') from error


def check_first_item(cfg, split='train'):
    """Builds the data set of ``{split}_dataloader`` and its first item,
    as the run's first step will, and refuses a batch size below 1.

    Returns:
        torch.utils.data.Dataset: the data set, for the run to use.

    Raises:
        UserError: the batch size, an empty data set, or a key a class
            of the data set or its pipeline does not take.
        ValueError, FileNotFoundError: what the data set or its pipeline
            raise (missing files, bad settings), naming what is wrong.
    """
    from mmengine.registry import DATASETS
    name = f'{split}_dataloader'
    loader = cfg.get(name)
    batch_size = loader.get('batch_size')
    if not (isinstance(batch_size, int) and batch_size >= 1):
        raise UserError(f'config: {name}.batch_size={batch_size!r}; give at '
                        'least 1')
    dataset_cfg = loader.get('dataset')
    try:
        with in_scope(cfg):
            dataset = dataset_cfg if not isinstance(dataset_cfg, dict) \
                else DATASETS.build(copy.deepcopy(dataset_cfg))
        if len(dataset) == 0:
            raise UserError(f'config: {name}.dataset has no items')
        dataset[0]
    except TypeError as error:
        raise UserError(build_error(dataset_cfg, f'{name}.dataset',
                                    error)) from error
    return dataset
