"""Chains pretraining, linear probing and fine-tuning for one config, and
prints a results table.

    python tools/pretrain_linear_finetune.py \
        configs/pretrain/randsac_vit-tiny-p4_square-m2_8xb64-amp-800e_cifar10.py\
        [LINEAR_CONFIG FINETUNE_CONFIG] --gpus 8

The evaluation configs default to those the pretraining config names in its
``eval_configs`` (every pretraining config outside the small-scale study
names a linear probe and a fine-tune whose backbone matches its encoder).

Each stage is tools/train.py (or tools/dist_train.sh with --gpus > 1) and
then tools/test.py on its newest complete checkpoint
(``randsac_mm.checkpoint.latest``); work goes to
<work-dir>/{pretrain,linear,finetune}. --pretrain-checkpoint skips the
pretraining stage. The table is also written to <work-dir>/results.json.
"""
import argparse
import json
import os
import os.path as osp
import subprocess
import sys

from randsac_mm.apis.device import DEVICES
from randsac_mm.checkpoint.latest import latest_checkpoint

HERE = osp.dirname(osp.abspath(__file__))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('pretrain_config')
    parser.add_argument('linear_config', nargs='?',
                        help="default: the pretraining config's "
                        "eval_configs['linear']")
    parser.add_argument('finetune_config', nargs='?',
                        help="default: its eval_configs['finetune']")
    parser.add_argument('--work-dir', help='default: work_dirs/<pretrain '
                        'config name>_protocol')
    parser.add_argument('--gpus', type=int, default=1,
                        help='processes per stage (>1: tools/dist_train.sh)')
    parser.add_argument('--pretrain-checkpoint',
                        help='skip pretraining and start from this checkpoint')
    parser.add_argument('--device', choices=DEVICES, default='cuda',
                        help="every stage's --device (tools/train.py): cuda "
                        '(default) or cpu, on purpose')
    for stage in ('pretrain', 'linear', 'finetune'):
        parser.add_argument(f'--{stage}-options', nargs='+', default=[],
                            metavar='KEY=VALUE',
                            help=f'--cfg-options of the {stage} stage')
    return parser.parse_args(argv)


def run(command):
    print('+ ' + ' '.join(command), flush=True)
    subprocess.run(command, check=True)


def newest_checkpoint(work_dir):
    """The newest complete checkpoint a stage wrote."""
    checkpoint = latest_checkpoint(work_dir)
    if checkpoint is None:
        raise FileNotFoundError(f'{work_dir} has no checkpoint: did the '
                                'stage save one?')
    return checkpoint


def train(config, work_dir, options, gpus, device):
    if gpus > 1:
        command = [osp.join(HERE, 'dist_train.sh'), config, str(gpus)]
    else:
        command = [sys.executable, osp.join(HERE, 'train.py'), config]
    command += ['--work-dir', work_dir, '--device', device]
    if options:
        command += ['--cfg-options'] + options
    run(command)
    return newest_checkpoint(work_dir)


def test(config, checkpoint, work_dir, options, device):
    command = [sys.executable, osp.join(HERE, 'test.py'), config, checkpoint,
               '--work-dir', work_dir, '--device', device]
    if options:
        command += ['--cfg-options'] + options
    run(command)
    with open(osp.join(work_dir, 'test_metrics.json')) as f:
        return json.load(f)


def default_eval_configs(args):
    """Fills the evaluation configs the pretraining config names."""
    if args.linear_config and args.finetune_config:
        return
    from mmengine.config import Config
    named = Config.fromfile(args.pretrain_config).get('eval_configs')
    if not named:
        raise ValueError(
            f'{args.pretrain_config} names no eval_configs: give '
            'LINEAR_CONFIG and FINETUNE_CONFIG (small-scale configs are '
            'evaluated with tools/analysis/eval_frozen.py)')
    args.linear_config = args.linear_config or named['linear']
    args.finetune_config = args.finetune_config or named['finetune']


def main(argv=None):
    args = parse_args(argv)
    if not osp.isfile(args.pretrain_config):
        raise FileNotFoundError(f'no such config {args.pretrain_config!r}')
    default_eval_configs(args)
    for path in (args.pretrain_config, args.linear_config,
                 args.finetune_config):
        if not osp.isfile(path):
            raise FileNotFoundError(f'no such config {path!r}')
    if args.gpus < 1:
        raise ValueError(f'--gpus must be >= 1, got {args.gpus}')
    name = osp.splitext(osp.basename(args.pretrain_config))[0]
    work_dir = args.work_dir or osp.join('work_dirs', f'{name}_protocol')
    os.makedirs(work_dir, exist_ok=True)
    checkpoint = args.pretrain_checkpoint or train(
        args.pretrain_config, osp.join(work_dir, 'pretrain'),
        args.pretrain_options, args.gpus, args.device)
    results = {}
    for stage, config, options in (
            ('linear', args.linear_config, args.linear_options),
            ('finetune', args.finetune_config, args.finetune_options)):
        stage_dir = osp.join(work_dir, stage)
        stage_options = [f'model.backbone.init_cfg.checkpoint={checkpoint}'
                         ] + options
        trained = train(config, stage_dir, stage_options, args.gpus,
                        args.device)
        results[stage] = test(config, trained, osp.join(stage_dir, 'test'),
                              stage_options, args.device)
    with open(osp.join(work_dir, 'results.json'), 'w') as f:
        json.dump(dict(pretrain_config=args.pretrain_config,
                       checkpoint=checkpoint, **results), f, indent=2)
    print(f'\n| pretraining | {name} |\n| --- | --- |')
    for stage, metrics in results.items():
        shown = ', '.join(f'{k} {v:.2f}' for k, v in metrics.items())
        print(f'| {stage} | {shown} |')
    print(f'\nwritten {osp.join(work_dir, "results.json")}')


if __name__ == '__main__':
    main()
