"""Config handling shared by ``tools/train.py`` and ``tools/test.py``."""
import argparse
import os
import os.path as osp

from mmengine.config import Config
from mmengine.logging import print_log

from .args import add_cfg_options
from .device import DEVICES
from .errors import UserError, launched_rank
from .paths import OUTPUT_FOLDER, check_config_path, check_output_folder

__all__ = ['LAUNCHER_ENV', 'add_common_args', 'apply_cfg_options',
           'check_launcher',
           'enable_amp', 'force_float32', 'load_run_config', 'read_config']


def read_config(path, argument='config'):
    """``Config.fromfile(path)``, a missing, mistyped or unreadable file
    refused as a UserError naming ``argument``.

    Returns:
        mmengine.Config
    """
    check_config_path(path, argument)
    try:
        return Config.fromfile(path)
    except SyntaxError as e:
        raise UserError(f'{argument}: {path} is not valid Python: {e.msg} '
                        f'(line {e.lineno})') from e
    except FileNotFoundError as e:  # a _base_ it names
        raise UserError(f'{argument}: {path} names a file that does not '
                        f'exist: {e.filename}') from e


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


def default_work_dir(cfg, config):
    """The work dir of a run of ``cfg`` (read from ``config``) given no
    ``--work-dir``: the config's ``work_dir``, else
    ``./work_dirs/<config name>``, as OpenMMLab's tools choose it."""
    if cfg.get('work_dir') is not None:
        return cfg.work_dir
    return osp.join('./work_dirs', osp.splitext(osp.basename(config))[0])


def load_run_config(args):
    """Reads ``args.config`` and applies the common flags.

    Returns:
        mmengine.Config: the merged config, with ``launcher`` and
        ``work_dir`` set.
    """
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
    amp_dtype = vars(args).get('amp_dtype')  # tools/train.py only
    if args.amp or amp_dtype is not None:
        enable_amp(cfg, amp_dtype)
    if vars(args).get('fp32'):  # tools/train.py only
        force_float32(cfg)
    return cfg


# A run's length on the command line: (key, counted in epochs).
LENGTH_KEYS = (('train_cfg.max_epochs', True), ('train_cfg.max_iters', False))


def apply_cfg_options(cfg, options):
    """Merges ``--cfg-options`` into ``cfg``, a new length included: a
    ``train_cfg.max_epochs`` (or ``max_iters``) other than the config's
    fits its learning-rate schedule to it as the studies do (warmup kept,
    the decay ending with the run;
    ``randsac_mm.engine.schedule_length.fit_schedulers``), unless the options
    set ``param_scheduler`` themselves; a line says so. Without this a
    cosine schedule of 10 epochs run for 40 would spend 30 at its minimum.
    """
    before = {key: cfg.get('train_cfg', {}).get(key.split('.')[1])
              for key, _ in LENGTH_KEYS}
    roots = {split: cfg.get(f'{split}_dataloader', {}).get('dataset', {})
             .get('data_root') for split in ('val', 'test')}
    cfg.merge_from_dict(options)
    for split, root in roots.items():
        _follow_data_root(cfg, options, split, root)
    if any(key.split('.')[0] == 'param_scheduler' for key in options):
        return
    from ..engine.schedule_length import fit_schedulers
    for key, by_epoch in LENGTH_KEYS:
        if key not in options or before[key] in (None, options[key]) or \
                not cfg.get('param_scheduler'):
            continue
        fit_schedulers(cfg, int(options[key]), by_epoch)
        unit = 'epochs' if by_epoch else 'iterations'
        if launched_rank() != 0:
            continue  # said once, by rank 0
        print_log(f'--cfg-options {key}={options[key]} (the config: '
                  f'{before[key]}): the learning-rate schedule fitted to '
                  f'{options[key]} {unit} (its warmup kept, its decay '
                  'ending with the run); set param_scheduler too to choose '
                  'otherwise', logger='current')


def _follow_data_root(cfg, options, split, old_root):
    """A ``<split>_dataloader.dataset.data_root`` given on the command
    line moves the split's evaluator's ``ann_file`` (COCO's ground truth,
    written in the config as ``data_root + 'annotations/...'``) with it,
    unless the options set that too: else the run would score against the
    old root's ground truth (stale files there, rc 0)."""
    key = f'{split}_dataloader.dataset.data_root'
    evaluator = cfg.get(f'{split}_evaluator')
    if key not in options or not old_root or not isinstance(
            evaluator, dict) or f'{split}_evaluator.ann_file' in options:
        return
    ann_file = evaluator.get('ann_file')
    old = osp.normpath(old_root)
    if not ann_file or not osp.normpath(ann_file).startswith(old + osp.sep):
        return
    evaluator['ann_file'] = osp.join(
        options[key], osp.relpath(osp.normpath(ann_file), old))
    print_log(f'--cfg-options {key}: {split}_evaluator.ann_file follows it '
              f"to {evaluator['ann_file']}", logger='current')


AMP_DTYPES = {'cuda': ('bfloat16', 'float16'), 'cpu': ('bfloat16', )}
# Keys of our AutocastOptimWrapper that mmengine's AmpOptimWrapper refuses.
AUTOCAST_ONLY_KEYS = ('precision', 'tf32')


def enable_amp(cfg, dtype=None):
    """Switches ``cfg.optim_wrapper`` to mixed precision for this machine.

    Args:
        cfg (mmengine.Config): modified in place.
        dtype (str | None): the autocast dtype, one of ``AMP_DTYPES`` for
            the device; None: bfloat16. bfloat16 uses our
            ``AutocastOptimWrapper`` on every device (the pretraining
            configs already use it on GPUs): it keeps fp32's exponent range,
            so it needs no loss scaler. float16 (CUDA only, for GPUs without
            bf16) is mmengine's ``AmpOptimWrapper`` with dynamic loss
            scaling, what ``--amp`` means in mmpretrain.
    """
    import torch

    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    if dtype is None:
        dtype = AMP_DTYPES[device][0]
    if dtype not in AMP_DTYPES[device]:
        raise ValueError(f'--amp-dtype: {dtype!r} is not available on '
                         f'{device}; allowed: {AMP_DTYPES[device]}')

    optim_wrapper = cfg.get('optim_wrapper')
    if optim_wrapper is None:
        # test.py: no optimizer, autocast the test loop instead.
        cfg.test_cfg = cfg.get('test_cfg') or {}
        cfg.test_cfg['fp16'] = True
        return
    if optim_wrapper.get('type', 'OptimWrapper') not in ('OptimWrapper',
                                                         'AmpOptimWrapper',
                                                         'AutocastOptimWrapper'):
        raise ValueError('--amp: optim_wrapper.type is '
                         f"{optim_wrapper['type']!r}; it must be OptimWrapper "
                         'for --amp to replace it')
    if dtype == 'float16':
        optim_wrapper['type'] = 'AmpOptimWrapper'
        optim_wrapper.setdefault('loss_scale', 'dynamic')
        for key in AUTOCAST_ONLY_KEYS:
            optim_wrapper.pop(key, None)
    else:
        optim_wrapper['type'] = 'AutocastOptimWrapper'
        optim_wrapper.pop('loss_scale', None)
        optim_wrapper['precision'] = 'bfloat16'  # on this device too
    optim_wrapper['dtype'] = dtype


def force_float32(cfg):
    """Trains ``cfg`` in float32 on every device (``tools/train.py
    --fp32``): an ``AutocastOptimWrapper`` gets ``precision='float32'``,
    and mmengine's ``AmpOptimWrapper`` (fp16 with loss scaling, the
    ADE20K and COCO recipes) becomes a plain ``OptimWrapper``."""
    optim_wrapper = cfg.get('optim_wrapper')
    kind = (optim_wrapper or {}).get('type', 'OptimWrapper')
    if kind == 'AutocastOptimWrapper':
        optim_wrapper['precision'] = 'float32'
    elif kind == 'AmpOptimWrapper':
        optim_wrapper['type'] = 'OptimWrapper'
        for key in ('loss_scale', 'dtype', 'use_fsdp'):
            optim_wrapper.pop(key, None)
    elif kind != 'OptimWrapper':
        raise ValueError(f'--fp32: optim_wrapper.type is {kind!r}; it must '
                         'be OptimWrapper, AmpOptimWrapper or '
                         'AutocastOptimWrapper for --fp32 to set its '
                         'precision')
