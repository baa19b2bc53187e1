"""The main job on the embedded default data: `make demo`.

Trains the mini ViT of ``configs/demo/vit-mini-p4_1xb64-10e_digits.py`` on
scikit-learn's digits on the CPU, evaluates it on the held-out split, and
prints the accuracy. Logs and checkpoints go to ``--work-dir``.
"""
import argparse
import json
import os.path as osp

import randsac_mm  # noqa: F401  (checks the stack, registers our modules)
from mmengine.config import Config
from mmengine.runner import Runner

REPO_ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))
CLASSIFIER_CONFIG = osp.join(REPO_ROOT, 'configs', 'demo',
                             'vit-mini-p4_1xb64-10e_digits.py')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--work-dir', default='work_dirs/demo',
                        help='where logs, checkpoints and results go')
    parser.add_argument('--epochs', type=int, default=10,
                        help='training epochs (default 10, about a minute)')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.epochs < 1:
        raise ValueError(f'--epochs must be >= 1, got {args.epochs}')
    cfg = Config.fromfile(CLASSIFIER_CONFIG)
    cfg.work_dir = osp.join(args.work_dir, 'supervised')
    cfg.train_cfg.max_epochs = args.epochs
    cfg.train_cfg.val_interval = args.epochs
    runner = Runner.from_cfg(cfg)
    runner.train()
    metrics = {k: float(v) for k, v in runner.test().items()}
    with open(osp.join(args.work_dir, 'results.json'), 'w') as f:
        json.dump(metrics, f, indent=2)
    print(f"\nDigits test accuracy of the supervised mini ViT after "
          f"{args.epochs} epochs: {metrics['accuracy/top1']:.2f}%  "
          f"(results: {osp.join(args.work_dir, 'results.json')})")


if __name__ == '__main__':
    main()
