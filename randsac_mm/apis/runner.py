"""The runner a training config gets: mmengine's Runner, or its
FlexibleRunner when the config names a ``strategy`` (FSDP, DeepSpeed); and
the checks ``tools/train.py`` and ``tools/test.py`` make before building it:
a checkpoint to test or resume must hold this config's model (mmengine
loads with ``strict=False`` and only warns, so another model's checkpoint
would test an untrained head, or fail deep inside the optimizer), and a
pretrained backbone's checkpoint must fit the backbone."""
import copy
import importlib.util

from ..checkpoint.reading import few, read_checkpoint, weight_mismatch
from .cli import UserError, config_kind

__all__ = ['STRATEGIES', 'build_model_for_checks', 'build_runner',
           'check_checkpoint', 'check_pretrained_init', 'check_strategy',
           'checkpoint_kind']

# The strategies tools/train.py runs, with what each needs.
STRATEGIES = ('DDPStrategy', 'FSDPStrategy', 'DeepSpeedStrategy')


def check_strategy(cfg, cuda_available):
    """Refuses a ``strategy`` this machine or config cannot honour, naming
    the key and what to change, before any process group or model exists.

    Args:
        cfg (mmengine.Config): the run's config (``launcher`` set).
        cuda_available (bool): whether this machine has CUDA GPUs.
    """
    strategy = cfg.get('strategy')
    if strategy is None:
        return
    kind = strategy.get('type') if isinstance(strategy, dict) else None
    if kind not in STRATEGIES:
        raise ValueError(f'strategy.type: {kind!r} is not supported; '
                         f'allowed: {STRATEGIES}')
    if kind != 'DDPStrategy' and cfg.get('launcher', 'none') == 'none':
        raise ValueError(
            f'strategy {kind} shards the model over processes: launch with '
            'tools/dist_train.sh (--launcher pytorch) or tools/slurm_train.sh'
            ' (--launcher slurm), not a single process')
    if not cuda_available:
        raise UserError(
            f'strategy {kind} needs CUDA GPUs (mmengine\'s FlexibleRunner '
            'gives each process the CUDA device of LOCAL_RANK); on a CPU, '
            'train without strategy (DDP over gloo with --launcher pytorch)')
    wrapper = cfg.get('optim_wrapper', {}).get('type', 'OptimWrapper')
    if kind == 'FSDPStrategy' and wrapper == 'AmpOptimWrapper':
        raise ValueError(
            'optim_wrapper.type AmpOptimWrapper (float16 with a GradScaler) '
            'does not scale sharded gradients: use the pretraining configs\' '
            "AutocastOptimWrapper (bf16) with strategy FSDPStrategy")
    if kind == 'DeepSpeedStrategy':
        if importlib.util.find_spec('deepspeed') is None:
            raise UserError('strategy DeepSpeedStrategy needs the deepspeed '
                            'package: pip install deepspeed')
        if wrapper != 'DeepSpeedOptimWrapper':
            raise ValueError(
                'strategy DeepSpeedStrategy needs optim_wrapper.type '
                f"'DeepSpeedOptimWrapper' (DeepSpeed owns the step), got "
                f'{wrapper!r}')


def build_runner(cfg):
    """mmengine's ``Runner`` for a config without ``strategy``, else its
    ``FlexibleRunner`` (after :func:`check_strategy`)."""
    import torch
    from mmengine.runner import FlexibleRunner, Runner
    if cfg.get('strategy') is None:
        return Runner.from_cfg(cfg)
    check_strategy(cfg, torch.cuda.is_available())
    return FlexibleRunner.from_cfg(cfg)


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


# Keys only a pretraining model has: RandSAC's decoder and predictor,
# MAE's decoder and mask token.
PRETRAINING_KEYS = ('head.predictor.', 'neck.skip_weights', 'neck.layers.',
                    'neck.mask_token', 'neck.decoder', 'target_generator.')
KIND_NAMES = {
    'pretraining': 'a pretraining checkpoint (RandSAC, MAE)',
    'encoder': 'an encoder-only checkpoint (no backbone. prefix: '
               'tools/model_converters output)',
    'backbone': 'a backbone-only checkpoint',
    'classifier': 'a classifier checkpoint of another config',
    'segmentation': 'a segmentation checkpoint',
    'detection': 'a detection checkpoint',
    'other': 'a checkpoint of another model',
}


def checkpoint_kind(loaded, state):
    """What a checkpoint looks like, one of ``KIND_NAMES``: the kind of the
    config mmengine stored in it, else guessed from its keys."""
    from ..checkpoint.loading import stored_config
    try:
        cfg = stored_config(loaded)
    except Exception:  # not an mmengine config: guess from the keys
        cfg = None
    if cfg is not None and cfg.get('model') is not None:
        return config_kind(cfg)
    prefixes = {k.split('.', 1)[0] for k in state}
    if any(k.startswith(PRETRAINING_KEYS) for k in state):
        return 'pretraining'
    if 'decode_head' in prefixes:
        return 'segmentation'
    if prefixes & {'rpn_head', 'roi_head', 'bbox_head'}:
        return 'detection'
    if 'backbone' not in prefixes:
        return 'encoder'
    if prefixes == {'backbone'}:
        return 'backbone'
    if 'head' in prefixes:
        return 'classifier'
    return 'other'


def check_checkpoint(cfg, path, argument, purpose, model=None):
    """Refuses a checkpoint that does not hold the config's model, before
    any loop runs, naming the keys and what the checkpoint looks like.

    Args:
        cfg (mmengine.Config): the run's config.
        path (str): the checkpoint.
        argument (str): the argument that gave it ('checkpoint',
            '--resume').
        purpose (str): 'test': every weight of the model must be in it
            with its shape, and no weight of another model; 'resume': the
            same, and the training state (``meta.epoch``, ``meta.iter``,
            ``optimizer``) mmengine resumes.
        model (torch.nn.Module | None): the built model (default: built
            from ``cfg`` with :func:`build_model_for_checks`).

    Raises:
        UserError
    """
    name = path
    loaded, state = read_checkpoint(path, argument)
    if model is None:
        model = build_model_for_checks(cfg)
    expected = model.state_dict()
    missing, unexpected, reshaped = weight_mismatch(expected, state)
    if missing or unexpected or reshaped:
        kind = checkpoint_kind(loaded, state)
        problems = []
        if missing:
            problems.append(
                f'{len(missing)} of the model\'s {len(expected)} weights are '
                f'not in it ({few(missing)})')
        if unexpected:
            problems.append(f'it holds {len(unexpected)} weights the model '
                            f'lacks ({few(unexpected, 2)})')
        if reshaped:
            problems.append(f'{len(reshaped)} have another shape '
                            f'({few(reshaped, 2)})')
        if purpose == 'test':
            effect = 'testing would score weights left as initialised' \
                if missing else 'it is not the model this config tests'
            if kind in ('pretraining', 'encoder', 'backbone'):
                advice = ('fine-tune or linear-probe it first with '
                          'tools/train.py (--cfg-options model.backbone.'
                          f'init_cfg.checkpoint={name}), or evaluate it '
                          'frozen with tools/analysis/eval_frozen.py')
            else:
                advice = 'test it with the config it was trained with'
        else:
            effect = 'it cannot resume this config\'s model and optimizer'
            if kind in ('pretraining', 'encoder', 'backbone'):
                advice = ('resume it with the config it was trained with; to '
                          'start from its encoder, drop --resume and give '
                          '--cfg-options model.backbone.init_cfg.checkpoint='
                          f'{name}')
            else:
                advice = ('resume it with the config it was trained with, or'
                          ' drop --resume to start a new run')
        raise UserError(
            f'{argument}: {name} does not fit the model of the config: '
            + '; '.join(problems) + f', so {effect}. It looks like '
            f'{KIND_NAMES[kind]}: {advice}')
    if purpose == 'resume':
        meta = loaded.get('meta') if isinstance(loaded.get('meta'), dict) \
            else {}
        lacking = [k for k in ('meta.epoch', 'meta.iter', 'optimizer')
                   if (k[5:] not in meta if k.startswith('meta.')
                       else k not in loaded)]
        if lacking:
            raise UserError(
                f'{argument}: {name} holds the model\'s weights but no '
                f'training state ({", ".join(lacking)}): not a checkpoint '
                'tools/train.py saved; to start from its weights, drop '
                f'--resume and give --cfg-options load_from={name}')


def check_pretrained_init(cfg):
    """Checks the checkpoint a ``Pretrained`` backbone ``init_cfg`` names,
    as our backbones' ``init_weights`` will (an empty or missing path, a
    file of another architecture), before the runner is built. Backbones
    without that check (mmpretrain's) are left to mmengine.

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
    with _scope(cfg):
        backbone = MODELS.build(copy.deepcopy(backbone_cfg))
    if hasattr(backbone, 'unused_checkpoint_keys'):  # ours: RandSACViT...
        check_pretrained_checkpoint(backbone, init_cfg.get('checkpoint'),
                                    init_cfg.get('prefix', ''),
                                    backbone.unused_checkpoint_keys)
