"""A config's parts built as a run builds them, each mistake one line: a
key no class takes names the key, its place in the config and the class
(the key Python's error names, found in the config's nodes whose class's
signature lacks it), a value a class refuses
(``randsac_mm.argument_limits``) names its place (the node that holds
it), a data set with no items or a batch size below 1 is named. Found
from the config and the registries, never from the error's traceback.
The preflight (``run.preflight``) builds a run's parts with them; the
studies check their configs with them before anything is made.
"""
import copy
import inspect
import os.path as osp
import re

from ..argument_limits import ArgumentOutOfRange
from ..cli.errors import UserError, one_line
from .config_kinds import in_scope, lookup
from .foreign_limits import check_model_limits, check_optim_wrapper_limits

__all__ = ['BUILD_REGISTRIES', 'build_error', 'build_model_for_checks',
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


# The registries a config part's nodes are built from, in the config's
# scope: a node's ``type`` is looked up in each, in turn.
BUILD_REGISTRIES = ('MODELS', 'DATASETS', 'TRANSFORMS', 'DATA_SAMPLERS',
                    'OPTIM_WRAPPERS', 'OPTIM_WRAPPER_CONSTRUCTORS',
                    'OPTIMIZERS', 'PARAM_SCHEDULERS', 'TASK_UTILS')
# What Python says of a keyword argument a callable does not take.
UNEXPECTED_KEY = re.compile(r"unexpected keyword argument '(\w+)'")


def _registries(names=BUILD_REGISTRIES):
    import mmengine.registry
    return [getattr(mmengine.registry, name) for name in names]


def _nodes(tree, path):
    """(path, node) of every dict with a ``type`` in the config ``tree``,
    the innermost first (a node after the nodes inside it)."""
    found = []
    if isinstance(tree, dict):
        for name, value in tree.items():
            found += _nodes(value, f'{path}.{name}')
        if tree.get('type') is not None:
            found.append((path, tree))
    elif isinstance(tree, (list, tuple)):
        for index, value in enumerate(tree):
            found += _nodes(value, f'{path}.{index}')
    return found


def _node_class(node, registries):
    """(the class a node's ``type`` names, the registry that builds it), as
    a build finds them in the current scope (:func:`lookup`), from the
    first of ``registries`` that has it; (None, None) when none has it."""
    for root in registries:
        found, registry = lookup(root, node['type'], None)
        if found is not None:
            return found, registry
    return None, None


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


def _name(cls):
    return getattr(cls, '__name__', str(cls))


def _refused_keys(tree, path, key, registries):
    """'place.key (Class)' of each node of ``tree`` that holds ``key``,
    which its class's signature does not take."""
    found = []
    for place, node in _nodes(tree, path):
        if key not in node:
            continue
        cls, _ = _node_class(node, registries)
        accepted = None if cls is None else _accepted_keys(cls)
        if accepted is not None and key not in accepted:
            found.append(f'{place}.{key} ({_name(cls)})')
    return found


def _failing_node(tree, path, error, registries):
    """'place (Class)' of the innermost node inside ``tree`` that, built
    alone, raises what ``error`` says; None when none does (a node that
    needs what its parent gives it fails otherwise, and is passed over).
    Only on the error's path: the part's inner nodes are built again, the
    part itself (a whole model or data set) never."""
    message = one_line(error)
    # The part itself (the last node) failed: it is not built again.
    for place, node in _nodes(tree, path)[:-1]:
        cls, registry = _node_class(node, registries)
        if cls is None:
            continue
        try:
            registry.build(copy.deepcopy(node))
        except type(error) as alone:
            if one_line(alone) == message:
                return f'{place} ({_name(cls)})'
        except Exception:  # noqa: BLE001  (it fails for another reason)
            pass
    return None


def build_error(tree, path, error, registries=None):
    """The one line for a TypeError raised while building the config part
    ``tree`` (at ``path``, e.g. 'model'), in the config's scope: where a
    class was given a key it does not take (the key Python's error names,
    found in the nodes whose class's signature lacks it), that key with
    the class (``model.backbone.nonsense (RandSACViT): ...``); else the
    innermost node that fails alone with the same error; else the part
    that failed, or the error itself.

    Args:
        registries (Sequence[Registry] | None): where the nodes' types are
            looked up; None: mmengine's root registries of
            :data:`BUILD_REGISTRIES`, which find every scope's classes.
    """
    registries = registries or _registries()
    message = one_line(error)
    named = UNEXPECTED_KEY.search(message)
    refused = named and _refused_keys(tree, path, named.group(1),
                                      registries)
    if refused:
        return (f'config: {", ".join(refused)}: {message}; remove it or '
                'correct its name')
    if named and not any(named.group(1) in node
                         for _, node in _nodes(tree, path)):
        # A key the config does not write: one a part gives a part it
        # builds (RandSAC gives its decoder the backbone's shapes).
        return (f'config: {path}: {message} (a key that a part gives a part '
                'it builds, which that part does not take)')
    path = _failing_node(tree, path, error, registries) or path
    return (f'config: {path}: building it raised TypeError: {message} (a '
            'value of the wrong type? --debug shows where)')


def _holding(tree, path, argument, value):
    """The places of the nodes of ``tree`` whose ``argument`` (dotted:
    'paramwise_cfg.layer_decay_rate') is ``value``."""
    found = []
    for place, node in _nodes(tree, path) + [(path, tree)]:
        held = node
        for part in argument.split('.'):
            held = held.get(part, _ABSENT) if isinstance(held, dict) \
                else _ABSENT
        if held is not _ABSENT and held == value and place not in found:
            found.append(place)
    return found


_ABSENT = object()


def refused_argument(tree, path, error):
    """The one line for an ``ArgumentOutOfRange`` a class raised while the
    config part ``tree`` (at ``path``) was built: the argument at its
    place in the config (``config: model.backbone.drop_path_rate=1.0: give
    a number in [0, 1)``), the place found as the node that holds that
    argument with that value."""
    places = _holding(tree, path, error.argument, error.value)
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
        with in_scope(cfg):
            raise UserError(build_error(cfg.model, 'model',
                                        error)) from error


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
        with in_scope(cfg):
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
        with in_scope(cfg):
            raise UserError(build_error(dataset_cfg, f'{name}.dataset',
                                        error)) from error
    return dataset
