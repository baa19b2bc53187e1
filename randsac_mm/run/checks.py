"""The checks ``tools/train.py`` and ``tools/test.py`` make before building
a runner, beside building its parts (``randsac_mm.run.builds``): a
checkpoint to test or resume must hold this config's model (mmengine loads
with ``strict=False`` and only warns, so another model's checkpoint would
test an untrained head, or fail deep inside the optimizer), and a
pretrained backbone's checkpoint must fit the backbone.
Both go through the one fit check, ``randsac_mm.checkpoint.fit``."""
import copy
import filecmp
import os.path as osp

from ..checkpoint.fit import check_fit, guess_kind, stop_resuming
from ..checkpoint.reading import (
    lacking_training_state,
    read_checkpoint,
    stored_config,
    training_progress,
)
from ..cli.errors import UserError
from .builds import build_model_for_checks
from .config_kinds import config_kind, in_scope, registered_class

__all__ = ['VIS_BACKEND_PACKAGES', 'check_batch_norm_batches',
           'check_checkpoint', 'check_evaluator_files',
           'check_pretrained_init', 'check_train_length',
           'check_vis_backends', 'checkpoint_kind', 'nothing_left_to_train']

# mmengine's logging backends and the package each imports when it first
# logs (its _init_env): missing, the run died there, after its work dir
# was made and the checks had passed.
VIS_BACKEND_PACKAGES = {
    'LocalVisBackend': None,
    'TensorboardVisBackend': 'tensorboard',
    'WandbVisBackend': 'wandb',
    'MLflowVisBackend': 'mlflow',
    'ClearMLVisBackend': 'clearml',
    'NeptuneVisBackend': 'neptune',
    'DVCLiveVisBackend': 'dvclive',
    'AimVisBackend': 'aim',
}

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
        argument (str): what gave it ('checkpoint', '--resume', the
            config's ``load_from``).
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
                'tools/train.py saved; to start from its weights, '
                f'{stop_resuming(argument)} and give --cfg-options '
                f'load_from={path}')


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
        with in_scope(cfg):
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


def _dataset_ann_file(dataset):
    """The annotation file an mmengine ``BaseDataset`` config reads: its
    ``ann_file`` joined to its ``data_root`` unless absolute (as
    ``BaseDataset`` joins them), or None."""
    ann_file = dataset.get('ann_file') if isinstance(dataset, dict) else None
    if not ann_file or osp.isabs(ann_file) or not dataset.get('data_root'):
        return ann_file or None
    return osp.join(dataset['data_root'], ann_file)


def _same_file(a, b):
    if osp.realpath(a) == osp.realpath(b):
        return True
    return osp.isfile(a) and osp.isfile(b) and filecmp.cmp(a, b,
                                                           shallow=False)


def check_evaluator_files(cfg, split):
    """Refuses an evaluator whose ground truth is not the file its split's
    data set reads.

    COCO's evaluator reads its own ``ann_file``, written in mmdet's configs
    as ``data_root + 'annotations/...'`` when the file is read: a config
    that changes only the data set's ``data_root`` (or ``ann_file``) would
    score the new images against the old root's ground truth, with rc 0
    when stale files are there. The same path, or a file of the same
    bytes, passes.

    Args:
        cfg (mmengine.Config): the run's config.
        split (str): 'val' or 'test'.

    Raises:
        UserError: naming both files and the key that sets each.
    """
    evaluators = cfg.get(f'{split}_evaluator')
    if isinstance(evaluators, dict):
        evaluators = [evaluators]
    loader = cfg.get(f'{split}_dataloader') or {}
    reads = _dataset_ann_file(loader.get('dataset'))
    if not reads or not isinstance(evaluators, (list, tuple)):
        return
    for evaluator in evaluators:
        scores = evaluator.get('ann_file') if isinstance(evaluator, dict) \
            else None
        if scores and not _same_file(scores, reads):
            raise UserError(
                f'config: {split}_evaluator.ann_file is {scores}, but the '
                f'{split} set reads {reads} ({split}_dataloader.dataset '
                'data_root + ann_file): the run would score against other '
                'ground truth; point both at the same file (--cfg-options '
                f'{split}_evaluator.ann_file={reads})')


def check_batch_norm_batches(cfg, model, dataset, world_size=1):
    """Refuses a training batch of one sample for a model that normalises
    over the batch (``BatchNorm1d``: the linear probe's neck), which
    raises "Expected more than 1 value per channel" at that batch: a batch
    size of 1, or an epoch whose last batch holds one sample (129 images
    at batch 128) unless ``drop_last`` drops it.

    Args:
        cfg (mmengine.Config): the run's config (``train_dataloader``).
        model (torch.nn.Module): its model, built.
        dataset: the training data set, built (its length).
        world_size (int): processes the data set is split over (mmengine's
            ``DefaultSampler`` gives each the same count, rounded up).

    Raises:
        UserError: naming the batch size, the count and ``drop_last``.
    """
    import math

    import torch
    norms = [name for name, m in model.named_modules()
             if isinstance(m, torch.nn.BatchNorm1d)]
    if not norms:
        return
    loader = cfg.train_dataloader
    batch = loader.batch_size
    what = (f'the model normalises over the batch ({norms[0]}: '
            'BatchNorm1d), which cannot train on one sample')
    if batch == 1:
        raise UserError(f'config: train_dataloader.batch_size=1: {what}; '
                        'give a batch size of 2 or more')
    sampler = (loader.get('sampler') or {}).get('type', 'DefaultSampler')
    if loader.get('drop_last') or sampler == 'InfiniteSampler':
        return  # every batch is whole
    per_process = math.ceil(len(dataset) / world_size)
    if per_process % batch == 1:
        raise UserError(
            f'config: train_dataloader: the last batch of each epoch holds '
            f'1 sample ({per_process} images a process at batch_size '
            f'{batch}): {what}; set train_dataloader.drop_last=True, or '
            'another batch size')


def check_vis_backends(cfg):
    """Refuses a logging backend (``visualizer.vis_backends``) that would
    fail at its first log: one no registry knows, or one whose package is
    not installed (``VIS_BACKEND_PACKAGES``).

    Raises:
        UserError: naming the backend's place, its type and the package.
    """
    import importlib.util

    from mmengine.registry import VISBACKENDS
    visualizer = cfg.get('visualizer') or {}
    backends = visualizer.get('vis_backends') or []
    if isinstance(backends, dict):
        backends = [backends]
    for index, backend in enumerate(backends):
        kind = backend.get('type') if isinstance(backend, dict) else None
        place = f'visualizer.vis_backends.{index}'
        known = isinstance(kind, (str, type)) and registered_class(
            cfg, VISBACKENDS, kind) is not None
        if not known:
            raise UserError(
                f'config: {place}.type={kind!r} is no registered logging '
                f'backend; mmengine\'s: {", ".join(VIS_BACKEND_PACKAGES)}')
        package = VIS_BACKEND_PACKAGES.get(getattr(kind, '__name__', kind))
        if package and importlib.util.find_spec(package) is None:
            raise UserError(
                f'config: {place} ({kind}) logs with the {package} package, '
                f'which is not installed: pip install {package}, or remove '
                'that backend')
