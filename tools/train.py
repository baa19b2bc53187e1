"""Trains a model from a config with mmengine's Runner.

Examples:
    python tools/train.py configs/demo/vit-mini-p4_1xb64-10e_digits.py
    tools/dist_train.sh configs/randsac_vit-b_in1k.py 8 --amp
    tools/dist_train.sh configs/randsac_vit-b_in1k.py 8 --amp-dtype bfloat16
    python tools/train.py CONFIG --resume                # latest checkpoint
    python tools/train.py CONFIG --resume work_dirs/x/epoch_10.pth
"""
import argparse
import os.path as osp

import randsac_mm.mmpretrain  # noqa: F401  (checks the stack, registers our modules)
from mmengine.runner import Runner
from randsac_mm.utils.distributed import prepare_cpu_distributed
from randsac_mm.utils.latest_checkpoint import latest_checkpoint
from randsac_mm.utils.run_config import add_common_args, load_run_config


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
        help='autocast dtype; implies --amp. float16 (CUDA only): '
        'AmpOptimWrapper with dynamic loss scaling, the --amp default on '
        'CUDA; bfloat16: autocast without loss scaling, the --amp default '
        'on a CPU')
    add_common_args(parser)
    return parser.parse_args(argv)


def apply_train_args(cfg, args):
    """Applies the training-only flags to ``cfg``."""
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
    cfg = apply_train_args(load_run_config(args), args)
    prepare_cpu_distributed(cfg, args.launcher)
    runner = Runner.from_cfg(cfg)
    runner.train()


if __name__ == '__main__':
    main()
