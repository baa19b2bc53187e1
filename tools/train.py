"""Trains a model from a config with mmengine's Runner (its FlexibleRunner
when the config sets ``strategy``, e.g. FSDP).

It trains on CUDA GPUs, and on the CPU only with ``--device cpu``: without
it, a process that finds no usable GPU stops before building anything and
says why (``randsac_mm.cli.device``).

Before anything is created it checks what would otherwise fail late or
train the wrong thing, and stops with one line naming the argument: a path
its argument refuses (``randsac_mm.cli.paths``), a config that is not a
model config (a data config), a pretraining config whose dataloaders do not
stack batches (``collate_fn``), a value the model or optimizer cannot use
(a rate out of its range, an unknown ``arch``: ``randsac_mm.cli.
config_values``), a model, optimizer or first training item that does not
build (a config key no class takes names the key and the class), a batch
of one sample for a model that normalises over the batch (the linear
probe's BatchNorm1d; its last batch too, unless ``drop_last``), a
pretrained backbone checkpoint
(``model.backbone.init_cfg.checkpoint``) that does not fit, ``--resume``
with no checkpoint in the work dir or with another model's checkpoint, a
work dir another run is training in. ``--dry-run`` makes only these checks
(``tools/dist_train.sh`` runs it once before starting its processes).

A run holds its work dir (``<work_dir>/.run.lock``, rank 0) until it ends:
a second run into the folder is refused naming the first; the lock of a
killed run is taken over, and said (``randsac_mm.cli.work_dir_lock``).

Examples:
    python tools/train.py configs/demo/vit-mini-p4_1xb64-10e_digits.py \\
        --device cpu
    tools/dist_train.sh configs/randsac_vit-b_in1k.py 8    # bf16 on the GPUs
    tools/dist_train.sh configs/randsac_vit-b_in1k.py 8 --amp-dtype float16
    python tools/train.py CONFIG --resume                # latest checkpoint
    python tools/train.py CONFIG --resume work_dirs/x/epoch_10.pth
"""
import os.path as osp

# Light imports only: the device is chosen before anything (mmengine, mmcv)
# asks torch for the GPUs.
from randsac_mm.cli.config import add_common_args, load_run_config
from randsac_mm.cli.config_kinds import (
    CONFIG_KINDS,
    check_collate,
    require_kind,
    trainable_kinds,
)
from randsac_mm.cli.device import use_device_or_exit
from randsac_mm.cli.errors import UserError, add_debug_arg, run_tool
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CHECKPOINT, CONFIG

PROG = 'tools/train.py'


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_path(
        'config',
        kind=CONFIG,
        help='the config file of the model to train (pretraining, linear '
        'probe, fine-tune, segmentation or detection), e.g. one under '
        'configs/')
    parser.add_path(
        '--resume',
        kind=CHECKPOINT,
        may_be_folder=True,  # DeepSpeed's checkpoint is a folder
        not_a_path=lambda value: value == 'auto',
        nargs='?',
        const='auto',
        default=None,
        metavar='CKPT',
        help='resume training: alone, from the newest checkpoint in the work '
        'dir (there must be one); with a path, from that checkpoint (model, '
        'optimizer, scheduler, iteration and random state), which must hold '
        "this config's model; None: start a new run")
    parser.add_argument(
        '--resume-if-saved',
        action='store_true',
        help='resume from the newest checkpoint in the work dir if there is '
        'one, else start a new run and say so: what tools/slurm_train.sh '
        'gives a requeued job, which may have been stopped before its first '
        'checkpoint')
    parser.add_argument(
        '--auto-scale-lr',
        action='store_true',
        help='scale the learning rate linearly with the actual total batch '
        'size over the config\'s auto_scale_lr.base_batch_size')
    parser.add_argument(
        '--no-validate',
        action='store_true',
        help='skip validation during training')
    parser.add_argument(
        '--amp-dtype',
        choices=['float16', 'bfloat16'],
        default=None,
        help='autocast dtype; implies --amp. bfloat16: autocast without '
        'loss scaling; float16 (CUDA only, for GPUs without bf16): '
        "mmengine's AmpOptimWrapper with dynamic loss scaling; None: the "
        "config's precision (bfloat16 with --amp)")
    parser.add_argument(
        '--fp32',
        action='store_true',
        help="float32 on every device, no autocast (the configs' "
        "precision='auto' computes in bf16 on GPUs and on CPUs with bf16 "
        'instructions), e.g. to compare with a float32 record')
    parser.add_argument(
        '--compile',
        action='store_true',
        help="run the model's loss compiled (torch.compile): adds "
        "CompileLossHook to the config's custom_hooks "
        '(docs/performance.md, "The whole step compiled")')
    parser.add_argument(
        '--dry-run',
        action='store_true',
        help='make the checks (config; the model, optimizer and first '
        'training item built; checkpoints; device) and stop before building '
        'the runner')
    add_common_args(parser)
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    if args.fp32 and (args.amp or args.amp_dtype is not None):
        parser.error('--fp32: not with --amp or --amp-dtype (one precision '
                     'a run)')
    if args.resume_if_saved and args.resume is not None:
        parser.error('--resume-if-saved: not with --resume (one decides '
                     'where the run starts)')
    return args


def apply_train_args(cfg, args):
    """Applies the training-only flags to ``cfg``."""
    from randsac_mm.checkpoint.latest import (
        dangling_pointer,
        latest_checkpoint,
    )
    if args.resume == 'auto' or args.resume_if_saved:
        # The checkpoint that ends the latest epoch and iteration (mmengine
        # would trust a last_checkpoint pointer a kill may have left stale).
        latest = latest_checkpoint(
            cfg.work_dir, log=lambda line: print(f'{PROG}: {line}',
                                                 flush=True))
        dangling = latest is None and dangling_pointer(cfg.work_dir)
        flag = '--resume-if-saved' if args.resume_if_saved else '--resume'
        if latest is not None:
            cfg.resume, cfg.load_from = True, latest
        elif args.resume_if_saved and not dangling:
            # A job stopped before its first checkpoint: nothing was lost.
            print(f'{PROG}: --resume-if-saved: no training checkpoint in '
                  f'{cfg.work_dir} yet: starting a new run', flush=True)
        else:  # asked for, or saved and then lost: a person decides
            raise UserError(
                f'{flag}: no training checkpoint in {cfg.work_dir} to '
                'resume from' + (
                    f' (its last_checkpoint names {dangling}, which does '
                    'not exist)' if dangling else '') + f'; drop {flag} '
                'to start a new run, or give the checkpoint (--resume CKPT) '
                'or the run\'s --work-dir')
    elif args.resume is not None:
        cfg.resume = True
        cfg.load_from = args.resume
    if args.auto_scale_lr:
        if 'auto_scale_lr' not in cfg or 'base_batch_size' not in \
                cfg.auto_scale_lr:
            raise UserError('--auto-scale-lr: the config has no '
                            'auto_scale_lr.base_batch_size to scale from')
        cfg.auto_scale_lr.enable = True
    if args.compile:
        hooks = list(cfg.get('custom_hooks') or [])
        if any(isinstance(h, dict) and h.get('type') == 'CompileLossHook'
               for h in hooks):
            raise UserError('--compile: the config already has a '
                            'CompileLossHook in custom_hooks; drop one')
        cfg.custom_hooks = hooks + [dict(type='CompileLossHook')]
    if args.no_validate:
        cfg.val_cfg = None
        cfg.val_dataloader = None
        cfg.val_evaluator = None
    return cfg


def check_config(cfg, args):
    """What tools/train.py refuses before building the runner (UserError,
    or the library's ValueError naming the key).

    Returns:
        randsac_mm.cli.run.runner.BuiltParts | None: the model and training
        data set the checks built, for the run (None with a ``strategy``:
        it builds its own, sharded).
    """
    import torch
    from mmengine.dist import get_world_size

    from randsac_mm.cli.builds import check_optimizer_builds
    from randsac_mm.cli.config_values import check_config_values
    from randsac_mm.cli.run.checks import (
        check_batch_norm_batches,
        check_checkpoint,
        check_evaluator_files,
        check_pretrained_init,
        check_train_length,
        check_vis_backends,
    )
    from randsac_mm.cli.run.runner import BuiltParts, check_strategy
    base = 'is a _base_ of model configs; train one that includes it, ' \
        'e.g. configs/demo/vit-mini-p4_1xb64-10e_digits.py'
    kind = require_kind(cfg, trainable_kinds(), 'config', args.config,
                        hint=dict(data=f'a data config {base}',
                                  runtime=f'a runtime config {base}'))
    lacking = [k for k in ('train_dataloader', 'train_cfg', 'optim_wrapper')
               if cfg.get(k) is None]
    if lacking:
        raise UserError(f'config: {osp.basename(args.config)} has no '
                        f'{", ".join(lacking)}: nothing to train with; a '
                        'training config sets train_dataloader, train_cfg '
                        'and optim_wrapper')
    check_train_length(cfg)
    check_config_values(cfg)
    check_vis_backends(cfg)
    check_evaluator_files(cfg, 'val')
    if CONFIG_KINDS.get(kind).stacked_batches:
        check_collate(cfg, ('train_dataloader', 'val_dataloader'), 'config')
    check_strategy(cfg, torch.cuda.is_available())
    # What the run builds first, built here (and handed to the run): a
    # config key no class takes, or a data set without its files, is
    # refused before the work dir.
    built = BuiltParts.build_model(cfg)
    model = built.model
    check_pretrained_init(cfg, backbone=getattr(model, 'backbone', None))
    # DeepSpeed builds its own optimizer and checks its own format.
    deepspeed = (cfg.get('strategy') or {}).get('type') == 'DeepSpeedStrategy'
    if not deepspeed:
        check_optimizer_builds(cfg, model)
    resuming = args.resume is not None or (args.resume_if_saved and
                                           cfg.get('resume'))
    if resuming and not deepspeed:
        check_checkpoint(cfg, cfg.load_from, '--resume', 'resume', model)
    built.build_dataset(cfg, 'train')
    check_batch_norm_batches(cfg, model, built.dataset, get_world_size())
    return built if cfg.get('strategy') is None else None


def main(argv=None):
    args = parse_args(argv)  # and its paths checked: nothing imported yet
    use_device_or_exit(args.device, PROG)
    import randsac_mm.registration  # noqa: F401  (checks the stack, registers our modules)
    from randsac_mm.cli.run.checks import nothing_left_to_train
    from randsac_mm.cli.run.distributed import start_process_group
    from randsac_mm.cli.run.runner import build_runner
    from randsac_mm.cli.work_dir_lock import check_work_dir_free
    cfg = apply_train_args(load_run_config(args), args)
    check_work_dir_free(cfg.work_dir)  # another run's: refused at once
    if not args.dry_run:  # (dist_train.sh's is one process)
        # Before the checks: they seed each process as the Runner will.
        start_process_group(cfg, args.launcher, args.device)
    built = check_config(cfg, args)
    left = cfg.get('resume') and cfg.get('load_from') and \
        nothing_left_to_train(cfg, cfg.load_from)
    if left:  # a finished run: not a mistake, and nothing to do
        print(f'{PROG}: {left}', flush=True)
        return
    if args.dry_run:
        print(f'{PROG}: {args.config}: the checks passed (dry run: nothing '
              'trained)', flush=True)
        return
    with _holding_work_dir(cfg, args.launcher):
        runner = build_runner(cfg, built)
        runner.train()


def _holding_work_dir(cfg, launcher):
    """The run's hold on its work dir (``randsac_mm.cli.work_dir_lock``):
    rank 0's; the other ranks write into the folder rank 0 holds."""
    import contextlib

    from randsac_mm.cli.errors import launched_rank
    from randsac_mm.cli.work_dir_lock import hold_work_dir
    if launcher != 'none' and launched_rank() != 0:
        return contextlib.nullcontext()
    return hold_work_dir(cfg.work_dir,
                         log=lambda line: print(f'{PROG}: {line}', flush=True))


if __name__ == '__main__':
    run_tool(main, prog=PROG)
