"""The flags a run takes on the command line and the run's config they
make: ``tools/train.py``'s and ``tools/test.py``'s shared flags
(:func:`add_common_args`), training's own (:func:`add_train_args`), the
launcher checked against the environment, and :func:`load_run_config`,
which reads the config and applies them all."""
import argparse
import os

from .args import add_cfg_options
from .config_file import apply_cfg_options, default_work_dir, read_config
from .device import DEVICES
from .errors import UserError
from .paths import CHECKPOINT, OUTPUT_FOLDER, check_output_folder

__all__ = ['LAUNCHER_ENV', 'add_common_args', 'add_train_args',
           'apply_train_args', 'check_launcher', 'check_train_args',
           'load_run_config', 'resume_flag']


def add_common_args(parser):
    """Adds the flags that training and testing share to ``parser`` (a
    :class:`~.parser.ToolParser`)."""
    parser.add_path(
        '--work-dir',
        kind=OUTPUT_FOLDER,
        help='directory for logs and checkpoints; None: the config\'s '
        'work_dir, else ./work_dirs/<config name>')
    parser.add_argument(
        '--amp',
        action='store_true',
        help='mixed precision on every device. Training: bf16 autocast '
        "(the configs' precision='auto' already uses it on GPUs and on CPUs "
        'with bf16 instructions; --amp turns it on on any CPU, with a '
        'warning of the cost where the CPU has none; tools/train.py '
        '--amp-dtype float16 gives fp16 with loss scaling). Testing: the '
        'test loop under autocast (fp16 on CUDA, bf16 on a CPU)')
    add_cfg_options(
        parser,
        'override config entries, KEY=VALUE pairs merged into the '
        'config, e.g. train_dataloader.batch_size=32 '
        "model.backbone.arch.num_layers=2 'key=[a,b]'; None: the config "
        'as written')
    parser.add_argument(
        '--device',
        choices=DEVICES,
        default='cuda',
        help='cuda: CUDA GPUs; a process without a usable one stops before '
        'building anything, naming the CUDA problem. cpu: on purpose '
        '(tests, the demo), hiding any GPU from the run')
    parser.add_argument(
        '--launcher',
        choices=['none', 'pytorch', 'slurm'],
        default='none',
        help='job launcher: none (one process), pytorch (torchrun, see '
        'tools/dist_train.sh), slurm (srun, see tools/slurm_train.sh)')
    # torch.distributed.launch passes --local_rank; torchrun sets LOCAL_RANK.
    parser.add_argument('--local_rank', '--local-rank', type=int, default=0,
                        help=argparse.SUPPRESS)
    return parser


# What each launcher's starter sets in every process's environment.
LAUNCHER_ENV = {
    'pytorch': (('RANK', 'WORLD_SIZE'), 'torchrun: tools/dist_train.sh '
                'CONFIG GPUS (tools/dist_test.sh CONFIG CHECKPOINT GPUS)'),
    'slurm': (('SLURM_PROCID', 'SLURM_NTASKS'), 'srun: '
              'tools/slurm_train.sh PARTITION JOB_NAME CONFIG WORK_DIR'),
}


def check_launcher(args):
    """Refuses a ``--launcher`` that ``--device`` cannot use, or (but for
    ``--dry-run``) that this process was not started by.

    Raises:
        UserError: naming the command that starts it.
    """
    if args.launcher == 'none':
        return
    if args.launcher == 'slurm' and getattr(args, 'device', None) == 'cpu':
        raise UserError('--launcher slurm needs CUDA GPUs; with --device cpu '
                        'use --launcher pytorch (tools/dist_train.sh) or '
                        'none')
    if getattr(args, 'dry_run', False):
        return  # the scripts check once, before their launcher starts
    names, starter = LAUNCHER_ENV[args.launcher]
    unset = [name for name in names if name not in os.environ]
    if unset:
        raise UserError(f'--launcher {args.launcher}: {" and ".join(unset)} '
                        f'{"is" if len(unset) == 1 else "are"} not set, so '
                        f'this process was not started by its launcher; '
                        f'start it with {starter}, or drop --launcher for '
                        'one process')


def add_train_args(parser):
    """Adds the flags only training takes to ``parser`` (a
    :class:`~.parser.ToolParser`); :func:`load_run_config` applies them."""
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
    return parser


def check_train_args(parser, args):
    """Refuses training flags that contradict each other (argparse's one
    line, exit 2)."""
    if args.fp32 and (args.amp or args.amp_dtype is not None):
        parser.error('--fp32: not with --amp or --amp-dtype (one precision '
                     'a run)')
    if args.resume_if_saved and args.resume is not None:
        parser.error('--resume-if-saved: not with --resume (one decides '
                     'where the run starts)')


def resume_flag(args):
    """The flag of :func:`add_train_args` that makes the run resume
    ('--resume', '--resume-if-saved'), or None: the config decides."""
    if args.resume_if_saved:
        return '--resume-if-saved'
    return '--resume' if args.resume is not None else None


def load_run_config(args, log=print):
    """Reads ``args.config`` and applies the flags: the common ones and,
    for a parser with :func:`add_train_args`, training's.

    Args:
        args (argparse.Namespace): the parsed arguments.
        log (Callable[[str], None]): told where a run resumes from, or that
            ``--resume-if-saved`` found nothing to resume.

    Returns:
        mmengine.Config: the merged config, with ``launcher`` and
        ``work_dir`` set.
    """
    # Here, not at the top: importing engine loads torch and mmengine, and
    # a tool imports this module before it chooses its device.
    from ..engine.optim_wrapper_precision import enable_amp, force_float32
    check_launcher(args)
    cfg = read_config(args.config, 'config')
    if args.cfg_options is not None:
        apply_cfg_options(cfg, args.cfg_options)
    cfg.launcher = args.launcher
    if args.work_dir is not None:  # checked as the parser read it
        cfg.work_dir = args.work_dir
    else:
        cfg.work_dir = default_work_dir(cfg, args.config)
        check_output_folder(cfg.work_dir, f'--work-dir (None: '
                            f'{cfg.work_dir})')
    training = 'resume_if_saved' in args
    amp_dtype = args.amp_dtype if training else None
    if args.amp or amp_dtype is not None:
        enable_amp(cfg, amp_dtype)
    if training:
        if args.fp32:
            force_float32(cfg)
        apply_train_args(cfg, args, log)
    return cfg


def apply_train_args(cfg, args, log=print):
    """Applies :func:`add_train_args`' flags but precision to ``cfg`` (where
    the run starts, the learning rate's scaling, ``--compile``,
    ``--no-validate``); :func:`load_run_config` calls it."""
    from ..checkpoint.latest import (
        dangling_pointer,
        latest_checkpoint,
    )
    if args.resume == 'auto' or args.resume_if_saved:
        # The checkpoint that ends the latest epoch and iteration (mmengine
        # would trust a last_checkpoint pointer a kill may have left stale).
        latest = latest_checkpoint(cfg.work_dir, log=log)
        dangling = latest is None and dangling_pointer(cfg.work_dir)
        flag = resume_flag(args)
        if latest is not None:
            cfg.resume, cfg.load_from = True, latest
        elif args.resume_if_saved and not dangling:
            # A job stopped before its first checkpoint: nothing was lost.
            log(f'--resume-if-saved: no training checkpoint in '
                f'{cfg.work_dir} yet: starting a new run')
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


