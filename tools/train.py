"""Trains a model from a config with mmengine's Runner (its FlexibleRunner
when the config sets ``strategy``, e.g. FSDP).

It trains on CUDA GPUs, and on the CPU only with ``--device cpu``: without
it, a process that finds no usable GPU stops before building anything and
says why (``randsac_mm.cli.device``).

Before the work dir is made, the preflight (``randsac_mm.run.
preflight``) builds what the run needs, once, and stops with one line
naming the argument or config key: a config of another kind (a data
config), a value a class refuses (a rate out of its range, an unknown
``arch``, a key no class takes), a data set without its files, a pretrained
backbone checkpoint that does not fit, ``--resume`` with no checkpoint or
another model's, a batch of one for a model that normalises over the
batch. ``--dry-run`` stops there (``tools/dist_train.sh`` runs it once
before starting its processes).

A run holds its work dir (``<work_dir>/.run.lock``, rank 0) until it ends:
a second run into the folder is refused naming the first; the lock of a
killed run is taken over, and said (``randsac_mm.run.work_dir_lock``).

Examples:
    python tools/train.py configs/demo/vit-mini-p4_1xb64-10e_digits.py \\
        --device cpu
    tools/dist_train.sh configs/randsac_vit-b_in1k.py 8    # bf16 on the GPUs
    tools/dist_train.sh configs/randsac_vit-b_in1k.py 8 --amp-dtype float16
    python tools/train.py CONFIG --resume                # latest checkpoint
    python tools/train.py CONFIG --resume work_dirs/x/epoch_10.pth
"""
import contextlib

# Light imports only: the device is chosen before anything (mmengine, mmcv)
# asks torch for the GPUs.
from randsac_mm.cli.device import use_device_or_exit
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CONFIG
from randsac_mm.cli.run_flags import (
    add_common_args,
    add_train_args,
    check_train_args,
    load_run_config,
    resume_flag,
)
from randsac_mm.cli.run_tool import launched_rank, run_tool

PROG = 'tools/train.py'


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_path(
        'config',
        kind=CONFIG,
        help='the config file of the model to train (pretraining, linear '
        'probe, fine-tune, segmentation or detection), e.g. one under '
        'configs/')
    add_train_args(parser)
    add_common_args(parser)
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    check_train_args(parser, args)
    return args


def say(line):
    print(f'{PROG}: {line}', flush=True)


def main(argv=None):
    args = parse_args(argv)  # and its paths checked: nothing imported yet
    use_device_or_exit(args.device, PROG)
    import randsac_mm.registration  # noqa: F401  (checks the stack, registers our modules)
    from randsac_mm.run.checks import nothing_left_to_train
    from randsac_mm.run.distributed import start_process_group
    from randsac_mm.run.preflight import CONFIG_RESUME, preflight
    from randsac_mm.run.runner import build_runner
    from randsac_mm.run.work_dir_lock import check_work_dir_free, hold_work_dir
    cfg = load_run_config(args, log=say)
    check_work_dir_free(cfg.work_dir)  # another run's: refused at once
    if not args.dry_run:  # (dist_train.sh's is one process)
        # Before the preflight: it seeds each process as the Runner will.
        start_process_group(cfg, args.launcher, args.device)
    parts = preflight(cfg, 'train',
                      resumed_by=resume_flag(args) or CONFIG_RESUME)
    left = cfg.get('resume') and cfg.get('load_from') and \
        nothing_left_to_train(cfg, cfg.load_from)
    if left:  # a finished run: not a mistake, and nothing to do
        return say(left)
    if args.dry_run:
        return say(f'{args.config}: the checks passed (dry run: nothing '
                   'trained)')
    # Rank 0 holds the work dir; the other ranks write into it.
    holds = args.launcher == 'none' or launched_rank() == 0
    with hold_work_dir(cfg.work_dir, log=say) if holds else \
            contextlib.nullcontext():
        build_runner(cfg, parts).train()


if __name__ == '__main__':
    run_tool(main, prog=PROG)
