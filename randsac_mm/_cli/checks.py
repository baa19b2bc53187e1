"""The checks ``tools/train.py`` and ``tools/test.py`` make before building
a runner: a checkpoint to test or resume must hold this config's model
(mmengine loads with ``strict=False`` and only warns, so another model's
checkpoint would test an untrained head, or fail deep inside the
optimizer), and a pretrained backbone's checkpoint must fit the backbone.
Both go through the one fit check, ``randsac_mm.checkpoint.fit``."""
import copy
import re

from ..checkpoint.fit import check_fit, guess_kind
from ..checkpoint.reading import (
    lacking_training_state,
    read_checkpoint,
    stored_config,
    training_progress,
)
from .config_kinds import config_kind
from .errors import UserError, one_line

__all__ = ['build_error', 'build_model_for_checks', 'check_checkpoint',
           'check_first_item', 'check_model_builds', 'check_optimizer_builds',
           'check_pretrained_init',
           'check_train_length', 'checkpoint_kind', 'nothing_left_to_train']

def _scope(cfg):
    from mmengine.registry import DefaultScope
    return DefaultScope.overwrite_default_scope(
        cfg.get('default_scope') or 'mmpretrain')


def build_model_for_checks(cfg):
    """The config's model as mmengine's Runner builds it (the top-level
    ``data_preprocessor`` merged in), not initialised: for its keys."""
    from mmengine.registry import MODELS
    model_cfg = copy.deepcopy(cfg.model)
    if cfg.get('data_preprocessor') is not None and hasattr(model_cfg,
                                                            'setdefault'):
        model_cfg.setdefault('data_preprocessor',
                             copy.deepcopy(cfg.data_preprocessor))
    with _scope(cfg):
        return MODELS.build(model_cfg)


def _holders(tree, key, path):
    """(path, type) of each dict in the config ``tree`` that has ``key``."""
    found = []
    if isinstance(tree, dict):
        if key in tree:
            found.append((path, tree.get('type')))
        for name, value in tree.items():
            found += _holders(value, key, f'{path}.{name}')
    elif isinstance(tree, (list, tuple)):
        for index, value in enumerate(tree):
            found += _holders(value, key, f'{path}.{index}')
    return found


def build_error(tree, path, error):
    """The one line for a TypeError raised while building the config part
    ``tree`` (at ``path``, e.g. 'model'): the key a class did not take,
    with the class (``model.backbone.nonsense (RandSACViT): ...``), or the
    error itself."""
    message = one_line(error)
    match = re.search(r"unexpected keyword argument '(\w+)'", message)
    places = _holders(tree, match.group(1), path) if match else []
    # Where several parts have the key, the one of the class named.
    named = re.search(r'(\w+)\.__init__\(\)', message)
    exact = [p for p in places if named and p[1] == named.group(1)]
    places = exact or places
    if places:
        where = ', '.join(
            f'{place}.{match.group(1)}'
            + (f' ({kind})' if isinstance(kind, str) else '')
            for place, kind in places)
        return f'config: {where}: {message}; remove it or correct its name'
    return (f'config: {path}: building it raised TypeError: {message} (a '
            'value of the wrong type? --debug shows where)')


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
        return build_model_for_checks(cfg)
    except TypeError as error:
        raise UserError(build_error(cfg.model, 'model', error)) from error


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
    try:
        with _scope(cfg):
            return build_optim_wrapper(model,
                                       copy.deepcopy(cfg.optim_wrapper))
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
        with _scope(cfg):
            dataset = dataset_cfg if not isinstance(dataset_cfg, dict) \
                else DATASETS.build(copy.deepcopy(dataset_cfg))
        if len(dataset) == 0:
            raise UserError(f'config: {name}.dataset has no items')
        dataset[0]
    except TypeError as error:
        raise UserError(build_error(dataset_cfg, f'{name}.dataset',
                                    error)) from error


def checkpoint_kind(loaded, state):
    """What a checkpoint looks like (a key of ``checkpoint.fit.
    LOOKS_LIKE``): the kind of the config mmengine stored in it, else a
    guess from its keys."""
    try:
        cfg = stored_config(loaded)
        kind = config_kind(cfg) if cfg is not None and \
            cfg.get('model') is not None else None
    except Exception:  # not a config of ours, or its types are gone
        kind = None
    return kind or guess_kind(state)


def check_checkpoint(cfg, path, argument, purpose, model=None):
    """Refuses a checkpoint that does not hold the config's model, before
    any loop runs (``check_fit``).

    Args:
        cfg (mmengine.Config): the run's config.
        path (str): the checkpoint.
        argument (str): the argument that gave it ('checkpoint',
            '--resume').
        purpose (str): 'test': every weight of the model must be in it
            with its shape, and no weight of another model; 'resume': the
            same, and the training state (``reading.TRAINING_STATE``) mmengine
            resumes.
        model (torch.nn.Module | None): the built model (default: built
            from ``cfg`` with :func:`build_model_for_checks`).

    Raises:
        UserError
    """
    loaded, state = read_checkpoint(path, argument)
    if model is None:
        model = build_model_for_checks(cfg)
    check_fit(model.state_dict(), state, argument, path, purpose,
              kind=checkpoint_kind(loaded, state), error=UserError)
    if purpose == 'resume':
        lacking = lacking_training_state(loaded)
        if lacking:
            raise UserError(
                f'{argument}: {path} holds the model\'s weights but no '
                f'training state ({", ".join(lacking)}): not a checkpoint '
                'tools/train.py saved; to start from its weights, drop '
                f'--resume and give --cfg-options load_from={path}')


def check_pretrained_init(cfg, name=None, backbone=None):
    """Checks the checkpoint a ``Pretrained`` backbone ``init_cfg`` names,
    as our backbones' ``init_weights`` will (an empty or missing path, a
    file of another architecture), before the runner is built. Backbones
    without that check (mmpretrain's) are left to mmengine.

    Args:
        cfg (mmengine.Config): the run's config.
        name (str | None): how messages name the checkpoint (default: its
            path).
        backbone (torch.nn.Module | None): the config's backbone, built
            (default: built here from ``cfg.model.backbone``).

    Raises:
        randsac_mm.checkpoint.PretrainedCheckpointError: a ValueError.
    """
    model = cfg.get('model')
    backbone_cfg = model.get('backbone') if hasattr(model, 'get') else None
    init_cfg = backbone_cfg.get('init_cfg') if hasattr(
        backbone_cfg, 'get') else None
    if not (isinstance(init_cfg, dict)
            and init_cfg.get('type') == 'Pretrained'):
        return
    from mmengine.registry import MODELS

    from ..checkpoint.loading import check_pretrained_checkpoint
    if backbone is None:
        with _scope(cfg):
            backbone = MODELS.build(copy.deepcopy(backbone_cfg))
    if hasattr(backbone, 'unused_checkpoint_keys'):  # ours: RandSACViT...
        check_pretrained_checkpoint(backbone, init_cfg.get('checkpoint'),
                                    init_cfg.get('prefix', ''),
                                    backbone.unused_checkpoint_keys, name)


def _train_length(cfg):
    """('max_epochs' or 'max_iters', its value) of ``cfg.train_cfg``, or
    None for a loop that states neither."""
    train_cfg = cfg.get('train_cfg') or {}
    for key in ('max_epochs', 'max_iters'):
        if train_cfg.get(key) is not None:
            return key, train_cfg[key]
    return None


def check_train_length(cfg):
    """Refuses a training config that asks for no training.

    Raises:
        UserError: ``train_cfg.max_epochs`` (or ``max_iters``) below 1.
    """
    length = _train_length(cfg)
    if length is not None and not length[1] >= 1:
        key, value = length
        raise UserError(f'config: train_cfg.{key}={value} asks for no '
                        f'training; give at least 1 (--cfg-options '
                        f'train_cfg.{key}=N)')


def nothing_left_to_train(cfg, checkpoint):
    """Why resuming ``checkpoint`` would train nothing, or None.

    Args:
        cfg (mmengine.Config): the run's config (``train_cfg``).
        checkpoint (str): the training checkpoint it resumes.

    Returns:
        str | None: e.g. 'epoch_3.pth ends epoch 3 of
        train_cfg.max_epochs=3'.
    """
    length, progress = _train_length(cfg), training_progress(checkpoint)
    if length is None or progress is None:
        return None
    key, value = length
    done = progress[0] if key == 'max_epochs' else progress[1]
    if done < value:
        return None
    unit = 'epoch' if key == 'max_epochs' else 'iteration'
    return (f'nothing left to train: {checkpoint} ends {unit} {done} of '
            f'train_cfg.{key}={value}; raise it (--cfg-options '
            f'train_cfg.{key}=N) to train on')
