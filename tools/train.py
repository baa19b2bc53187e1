"""Trains a model from a config with mmengine's Runner (its FlexibleRunner
when the config sets ``strategy``, e.g. FSDP).

It trains on CUDA GPUs, and on the CPU only with ``--device cpu``: without
it, a process that finds no usable GPU stops before building anything and
says why (``randsac_mm.apis.device``).

Examples:
    python tools/train.py configs/demo/vit-mini-p4_1xb64-10e_digits.py \
        --device cpu
    tools/dist_train.sh configs/randsac_vit-b_in1k.py 8    # bf16 on the GPUs
    tools/dist_train.sh configs/randsac_vit-b_in1k.py 8 --amp-dtype float16
    python tools/train.py CONFIG --resume                # latest checkpoint
    python tools/train.py CONFIG --resume work_dirs/x/epoch_10.pth
"""
import argparse
import os.path as osp

# Light imports only: the device is chosen before anything (mmengine, mmcv)
# asks torch for the GPUs.
from randsac_mm.apis.config import add_common_args, load_run_config
from randsac_mm.apis.device import use_device_or_exit


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Train a model (pretraining, linear probe, fine-tune, '
        'segmentation or detection) from a config.')
    parser.add_argument('config', help='path of the config file')
    parser.add_argument(
        '--resume',
        nargs='?',
        const='auto',
        default=None,
        metavar='CKPT',
        help='resume training: alone, from the latest checkpoint in the work '
        'dir; with a path, from that checkpoint (model, optimizer, scheduler,'
        ' iteration and random state)')
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
        help='autocast dtype; implies --amp. bfloat16 (the default): '
        'autocast without loss scaling; float16 (CUDA only, for GPUs '
        "without bf16): mmengine's AmpOptimWrapper with dynamic loss "
        'scaling')
    add_common_args(parser)
    return parser.parse_args(argv)


def apply_train_args(cfg, args):
    """Applies the training-only flags to ``cfg``."""
    from randsac_mm.checkpoint.latest import latest_checkpoint
    if args.resume == 'auto':
        # Explicitly the newest complete checkpoint (mmengine would trust a
        # last_checkpoint pointer a kill may have left stale); none: start.
        cfg.resume = True
        cfg.load_from = latest_checkpoint(cfg.work_dir)
    elif args.resume is not None:
        if not osp.isfile(args.resume):
            raise FileNotFoundError(
                f'--resume: no such checkpoint {args.resume!r}')
        cfg.resume = True
        cfg.load_from = args.resume
    if args.auto_scale_lr:
        if 'auto_scale_lr' not in cfg or 'base_batch_size' not in \
                cfg.auto_scale_lr:
            raise ValueError('--auto-scale-lr: the config has no '
                             'auto_scale_lr.base_batch_size to scale from')
        cfg.auto_scale_lr.enable = True
    if args.no_validate:
        cfg.val_cfg = None
        cfg.val_dataloader = None
        cfg.val_evaluator = None
    return cfg


def main(argv=None):
    args = parse_args(argv)
    use_device_or_exit(args.device, 'tools/train.py')
    import randsac_mm.registration  # noqa: F401  (checks the stack, registers our modules)
    from randsac_mm.apis.distributed import prepare_cpu_distributed
    from randsac_mm.apis.runner import build_runner
    cfg = apply_train_args(load_run_config(args), args)
    if args.device == 'cpu' and cfg.get('strategy') is None:
        # FlexibleRunner starts its own group (and refuses the CPU).
        prepare_cpu_distributed(cfg, args.launcher)
    runner = build_runner(cfg)
    runner.train()


if __name__ == '__main__':
    main()
