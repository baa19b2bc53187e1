"""One preflight for every run: a config and a purpose ('train' or
'test') turned into the parts the run needs, built once, or one line
saying why not.

Every refusal comes before the work dir is made and before any loop
starts: the config's kind and loops, the values its builders refuse
(each class guards its own arguments: the model, optimizer and data set
are built here as the run builds them), a checkpoint that does not hold
the config's model, a pretrained backbone that does not fit, a batch of one
for a model that normalises over the batch, a logging backend that cannot
log, an evaluator that scores against other ground truth, a strategy this
machine cannot honour. ``tools/train.py``, ``tools/test.py`` and the
experiments that train call :func:`preflight`, then
:func:`~.runner.build_runner` with what it built;
``tools/pretrain_linear_finetune.py`` calls it for each stage's config
before its first stage starts.

The data set is built and its first item read before the global
generators are seeded as the Runner seeds them, and the model is built
right after the seed, as the Runner builds it: the Runner, handed both,
does not seed again (``runner.RunnerWithParts``), and the run draws what
a Runner that built them itself would draw (a test compares the weights
after an epoch).
"""
import os.path as osp
from dataclasses import dataclass

from ..cli.errors import UserError
from .builds import (
    check_first_item,
    check_model_builds,
    check_optimizer_builds,
)
from .checks import (
    check_batch_norm_batches,
    check_checkpoint,
    check_evaluator_files,
    check_pretrained_init,
    check_train_length,
    check_vis_backends,
)
from .config_kinds import (
    CONFIG_KINDS,
    check_collate,
    require_kind,
    testable_kinds,
    trainable_kinds,
)

__all__ = ['CONFIG_RESUME', 'PURPOSES', 'RunParts', 'preflight']

# purpose: (the kinds it takes, what a config of another kind is told, the
# keys its loop needs).
_BASE = ('is a _base_ of model configs; {} one that includes it, e.g. '
         'configs/demo/vit-mini-p4_1xb64-10e_digits.py')
PURPOSES = {
    'train': (trainable_kinds, dict(
        data='a data config ' + _BASE.format('train'),
        runtime='a runtime config ' + _BASE.format('train')),
        ('train_dataloader', 'train_cfg', 'optim_wrapper'),
        'nothing to train with; a training config sets train_dataloader, '
        'train_cfg and optim_wrapper'),
    'test': (testable_kinds, dict(
        pretraining='a pretraining config has no test loop; test the '
        'classifier config you fine-tuned or linear-probed its checkpoint '
        'with (its eval_configs), or evaluate the checkpoint frozen with '
        'tools/analysis/eval_frozen.py',
        data='a data config has no model; test a model config that '
        'includes it'),
        ('test_dataloader', 'test_cfg', 'test_evaluator'),
        'no test loop; a tested config sets test_dataloader, test_cfg and '
        'test_evaluator'),
}


@dataclass
class RunParts:
    """What the preflight built, for the Runner to use rather than build
    again.

    Attributes:
        model (torch.nn.Module): the config's model (``data_preprocessor``
            merged in), built right after the generators were seeded.
        seed (int): the seed they were seeded with (the Runner's
            ``randomness``, this process's rank added with
            ``diff_rank_seed``).
        split (str): 'train' or 'test': whose loader ``dataset`` is.
        dataset (torch.utils.data.Dataset): that loader's data set, built
            and its first item read.
    """
    model: object
    seed: int
    split: str
    dataset: object


# How messages name a resume the config asks for itself (no flag).
CONFIG_RESUME = 'config: load_from (resume=True)'


def preflight(cfg, purpose, checkpoint=None, world_size=None,
              resumed_by=CONFIG_RESUME):
    """Checks ``cfg`` for ``purpose`` and builds what its run needs.

    Args:
        cfg (mmengine.Config): the run's config (``--cfg-options`` and the
            tool's flags applied; ``launcher`` set; for a resumed run
            ``resume`` and ``load_from``). Its ``filename`` names it in
            the messages.
        purpose (str): a key of ``PURPOSES``: 'train' (also a dry run) or
            'test'.
        checkpoint (str | None): 'test': the checkpoint to test; 'train':
            None (a resumed run's is ``cfg.load_from``).
        world_size (int | None): processes the run's data is split over;
            None: this process group's.
        resumed_by (str): how messages name what asked for the resume
            (``cfg.load_from``): the tool's flag ('--resume'), else the
            config's own keys.

    Returns:
        RunParts | None: None for a config with a ``strategy`` (FSDP,
        DeepSpeed: mmengine's FlexibleRunner builds its own parts,
        sharded).

    Raises:
        UserError, ValueError: one line naming the argument or config key.
    """
    import torch
    from mmengine.dist import get_world_size

    from .runner import check_strategy
    if purpose not in PURPOSES:
        raise ValueError(f'purpose: {purpose!r}; allowed: {tuple(PURPOSES)}')
    kinds, hint, loop_keys, no_loop = PURPOSES[purpose]
    kind = require_kind(cfg, kinds(), 'config', cfg.filename, hint=hint)
    lacking = [key for key in loop_keys if cfg.get(key) is None]
    if lacking:
        raise UserError(f'config: {osp.basename(cfg.filename or "it")} has '
                        f'no {", ".join(lacking)}: {no_loop}')
    training = purpose == 'train'
    if training:
        check_train_length(cfg)
        if CONFIG_KINDS.get(kind).stacked_batches:
            check_collate(cfg, ('train_dataloader', 'val_dataloader'),
                          'config')
    check_strategy(cfg, torch.cuda.is_available())
    check_vis_backends(cfg)
    check_evaluator_files(cfg, 'val' if training else 'test')
    dataset = check_first_item(cfg, purpose)
    seed = _seed_as_the_runner(cfg)
    model = check_model_builds(cfg)
    if training:
        _check_training(cfg, model, dataset, world_size or get_world_size(),
                        resumed_by)
    else:  # the checkpoint is loaded over the initialisation
        check_checkpoint(cfg, checkpoint, 'checkpoint', 'test', model)
    if cfg.get('strategy') is not None:
        return None
    return RunParts(model=model, seed=seed, split=purpose, dataset=dataset)


def _check_training(cfg, model, dataset, world_size, resumed_by):
    """What only a training run refuses once its model and data set are
    built: the pretrained backbone, the optimizer, the checkpoint it
    resumes, a batch of one for a BatchNorm1d readout."""
    check_pretrained_init(cfg, backbone=getattr(model, 'backbone', None))
    # DeepSpeed builds its own optimizer and reads its own checkpoints.
    if (cfg.get('strategy') or {}).get('type') != 'DeepSpeedStrategy':
        check_optimizer_builds(cfg, model)
        if cfg.get('resume') and cfg.get('load_from'):
            check_checkpoint(cfg, cfg.load_from, resumed_by, 'resume',
                             model)
    check_batch_norm_batches(cfg, model, dataset, world_size)


def _seed_as_the_runner(cfg):
    """Seeds the global generators as mmengine's Runner does when it is
    created (``cfg.randomness``; each process's rank counts with
    ``diff_rank_seed``, so its process group must be started first), and
    returns the seed."""
    from mmengine.runner import set_random_seed
    return set_random_seed(**(cfg.get('randomness') or dict(seed=None)))
