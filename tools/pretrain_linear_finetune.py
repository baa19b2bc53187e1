"""Chains pretraining, linear probing and fine-tuning for one config, and
prints a results table.

    python tools/pretrain_linear_finetune.py \\
        configs/pretrain/randsac_vit-tiny-p4_square-m2_8xb64-amp-800e_cifar10.py\\
        [LINEAR_CONFIG FINETUNE_CONFIG] --gpus 8

The evaluation configs default to those the pretraining config names in its
``eval_configs`` (every pretraining config outside the small-scale study
names a linear probe and a fine-tune whose backbone matches its encoder).

Each stage is tools/train.py (or tools/dist_train.sh with --gpus > 1) and
then tools/test.py on its newest complete checkpoint
(``randsac_mm.checkpoint.latest``); work goes to
<work-dir>/{pretrain,linear,finetune}. --pretrain-checkpoint skips the
pretraining stage. The table is also written to <work-dir>/results.json.

Before the first stage starts it checks what would otherwise fail hours
later, in a child process: the configs' kinds, the --*-options, the
device, and that the evaluation configs' backbones fit the pretraining
encoder (--pretrain-checkpoint's, or the pretraining config's model).
"""
import json
import os
import os.path as osp
import subprocess
import sys

from randsac_mm.cli.args import cfg_option, positive_int
from randsac_mm.cli.device import DEVICES, use_device_or_exit
from randsac_mm.cli.errors import (
    USER_ERRORS,
    UserError,
    add_debug_arg,
    one_line,
)
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CHECKPOINT, CONFIG, OUTPUT_FOLDER
from randsac_mm.cli.run_tool import run_tool
from randsac_mm.run.config_kinds import require_kind

PROG = 'tools/pretrain_linear_finetune.py'
HERE = osp.dirname(osp.abspath(__file__))
STAGES = ('pretrain', 'linear', 'finetune')


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_path('pretrain_config', kind=CONFIG,
                    help='the pretraining config (RandSAC, MAE)')
    parser.add_path('linear_config', kind=CONFIG, nargs='?',
                    help="the linear-probe config; None: the pretraining "
                    "config's eval_configs['linear']")
    parser.add_path('finetune_config', kind=CONFIG, nargs='?',
                    help="the fine-tune config; None: its "
                    "eval_configs['finetune']")
    parser.add_path('--work-dir', kind=OUTPUT_FOLDER,
                    help='where the stages write; None: '
                    'work_dirs/<pretrain config name>_protocol')
    parser.add_argument('--gpus', type=positive_int, default=1,
                        help='processes per stage (>1: tools/dist_train.sh)')
    parser.add_path('--pretrain-checkpoint', kind=CHECKPOINT, metavar='CKPT',
                        help='skip pretraining and start from this '
                        'checkpoint of the pretraining config; None: '
                        'pretrain first')
    parser.add_argument('--device', choices=DEVICES, default='cuda',
                        help="every stage's --device (tools/train.py): cuda "
                        '(CUDA GPUs, checked here first) or cpu, on purpose')
    for stage in STAGES:
        parser.add_argument(f'--{stage}-options', nargs='+', default=[],
                            type=cfg_option, metavar='KEY=VALUE',
                            help=f'--cfg-options of the {stage} stage')
    parser.add_argument('--dry-run', action='store_true',
                        help='make the checks and stop before the first '
                        'stage')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def run(command, step):
    print(f'[protocol {step}] + ' + ' '.join(command), flush=True)
    subprocess.run(command, check=True)


def newest_checkpoint(work_dir):
    """The newest complete checkpoint a stage wrote."""
    from randsac_mm.checkpoint.latest import latest_checkpoint
    checkpoint = latest_checkpoint(work_dir)
    if checkpoint is None:
        raise FileNotFoundError(f'{work_dir} has no checkpoint: did the '
                                'stage save one?')
    return checkpoint


def train(config, work_dir, options, gpus, device, step):
    if gpus > 1:
        command = [osp.join(HERE, 'dist_train.sh'), config, str(gpus)]
    else:
        command = [sys.executable, osp.join(HERE, 'train.py'), config]
    command += ['--work-dir', work_dir, '--device', device]
    if options:
        command += ['--cfg-options'] + options
    run(command, step)
    return newest_checkpoint(work_dir)


def stage_options(stage, args, encoder):
    """The ``--cfg-options`` a stage's tools/train.py and tools/test.py
    get: an evaluation stage's backbone from ``encoder``, then the user's
    ``--<stage>-options`` (which may name another)."""
    options = getattr(args, f'{stage}_options')
    if stage == 'pretrain':
        return options
    return [f'model.backbone.init_cfg.checkpoint={encoder}'] + options


def test(config, checkpoint, work_dir, options, device, step):
    command = [sys.executable, osp.join(HERE, 'test.py'), config, checkpoint,
               '--work-dir', work_dir, '--device', device]
    if options:
        command += ['--cfg-options'] + options
    run(command, step)
    with open(osp.join(work_dir, 'test_metrics.json')) as f:
        return json.load(f)


def default_eval_configs(args, pretrain_cfg):
    """Fills the evaluation configs the pretraining config names."""
    if args.linear_config and args.finetune_config:
        return
    named = pretrain_cfg.get('eval_configs')
    if not named:
        raise UserError(
            f'pretrain_config: {args.pretrain_config} names no eval_configs:'
            ' give LINEAR_CONFIG and FINETUNE_CONFIG (small-scale configs are'
            ' evaluated with tools/analysis/eval_frozen.py)')
    args.linear_config = args.linear_config or named['linear']
    args.finetune_config = args.finetune_config or named['finetune']


def stage_config(args, stage, encoder):
    """The config a stage's tools/train.py runs: read, of the kind the
    stage takes, with its :func:`stage_options` applied as tools/train.py
    applies ``--cfg-options`` (the schedule fitted to a new length too). The
    pretraining config fills in the evaluation configs it names."""
    from randsac_mm.cli.args import parse_cfg_options
    from randsac_mm.cli.config_file import apply_cfg_options, read_config
    argument = f'{stage}_config'
    path = getattr(args, argument)
    cfg = read_config(path, argument)
    require_kind(cfg, ('pretraining', ) if stage == 'pretrain' else
                 ('classifier', ), argument, path)
    if stage == 'pretrain':
        default_eval_configs(args, cfg)
    apply_cfg_options(cfg, parse_cfg_options(
        stage_options(stage, args, encoder)))
    return cfg


def check_up_front(args):
    """Each stage's config checked as its tools/train.py will check it
    (``preflight``), before the first starts; the evaluation stages with
    the encoder they will start from (UserError naming the argument)."""
    import tempfile

    import torch

    from randsac_mm.checkpoint.loading import PretrainedCheckpointError
    from randsac_mm.checkpoint.reading import read_checkpoint
    from randsac_mm.run.builds import check_model_builds
    from randsac_mm.run.checks import check_pretrained_init
    from randsac_mm.run.preflight import preflight

    def checked(cfg, stage):
        """The stage's preflight, a refusal naming the stage's config."""
        cfg.launcher = 'pytorch' if args.gpus > 1 else 'none'
        try:
            return preflight(cfg, 'train', world_size=args.gpus)
        except USER_ERRORS as e:
            path = getattr(args, f'{stage}_config')
            raise UserError(f'{stage}_config: {osp.basename(path)}: '
                            f'{one_line(e).removeprefix("config: ")}') from e

    pretrain_cfg = stage_config(args, 'pretrain', None)
    if args.pretrain_checkpoint is not None:
        read_checkpoint(args.pretrain_checkpoint, '--pretrain-checkpoint')
        encoder, source = args.pretrain_checkpoint, '--pretrain-checkpoint'
    else:
        parts = checked(pretrain_cfg, 'pretrain')
        encoder, source = None, 'pretrain_config'
    with tempfile.TemporaryDirectory() as tmp:
        if encoder is None:
            # The pretraining model's keys and shapes, as its checkpoint
            # will hold them.
            encoder = osp.join(tmp, 'pretraining_model.pth')
            model = parts.model if parts else check_model_builds(
                pretrain_cfg)
            torch.save({'state_dict': model.state_dict(), 'meta': {}},
                       encoder)
            del model, parts
        for stage in ('linear', 'finetune'):
            cfg = stage_config(args, stage, encoder)
            init_cfg = cfg.model.get('backbone', {}).get('init_cfg')
            if not (isinstance(init_cfg, dict)
                    and init_cfg.get('type') == 'Pretrained'):
                raise UserError(
                    f'{stage}_config: {getattr(args, stage + "_config")} '
                    'does not initialise its backbone from a checkpoint '
                    "(model.backbone.init_cfg type='Pretrained'): it would "
                    'not evaluate the pretrained encoder')
            if init_cfg.checkpoint != encoder:  # the user's options name one
                what, blame = repr(init_cfg.checkpoint), f'--{stage}-options'
            elif source == '--pretrain-checkpoint':
                what, blame = repr(encoder), source
            else:
                what, blame = f'the model of {args.pretrain_config}', source
            # The encoder's fit first, named by where it comes from; then
            # the stage's config as its tools/train.py will check it.
            backbone = getattr(check_model_builds(cfg), 'backbone', None)
            try:
                check_pretrained_init(cfg, name=what, backbone=backbone)
            except PretrainedCheckpointError as e:
                raise UserError(
                    f'{blame}: {stage}_config '
                    f'{getattr(args, stage + "_config")}: {e}') from e
            checked(cfg, stage)


def main(argv=None):
    args = parse_args(argv)  # and its paths checked: nothing imported yet
    # The device next (as tools/train.py), before torch looks at GPUs: for
    # cuda, --gpus processes must each have one.
    use_device_or_exit(args.device, PROG, local_rank=args.gpus - 1)
    import randsac_mm.registration  # noqa: F401  (registers our modules)
    check_up_front(args)
    if args.dry_run:
        print(f'{PROG}: the checks passed (dry run: nothing trained)')
        return
    name = osp.splitext(osp.basename(args.pretrain_config))[0]
    work_dir = args.work_dir or osp.join('work_dirs', f'{name}_protocol')
    os.makedirs(work_dir, exist_ok=True)
    steps = 4 + (args.pretrain_checkpoint is None)
    step = 0

    def next_step():
        nonlocal step
        step += 1
        return f'{step}/{steps}'

    try:
        checkpoint = args.pretrain_checkpoint or train(
            args.pretrain_config, osp.join(work_dir, 'pretrain'),
            stage_options('pretrain', args, None), args.gpus, args.device,
            next_step())
        results = {}
        for stage in ('linear', 'finetune'):
            config = getattr(args, f'{stage}_config')
            stage_dir = osp.join(work_dir, stage)
            options = stage_options(stage, args, checkpoint)
            trained = train(config, stage_dir, options, args.gpus,
                            args.device, next_step())
            results[stage] = test(config, trained,
                                  osp.join(stage_dir, 'test'), options,
                                  args.device, next_step())
    except subprocess.CalledProcessError as e:
        print(f'{PROG}: error: step {step}/{steps} failed (exit code '
              f'{e.returncode}; its output is above): {" ".join(e.cmd)}',
              file=sys.stderr)
        sys.exit(e.returncode if e.returncode > 0 else 1)
    from randsac_mm.checkpoint import write_json
    write_json(osp.join(work_dir, 'results.json'),
               dict(pretrain_config=args.pretrain_config,
                    checkpoint=checkpoint, **results))
    print(f'\n| pretraining | {name} |\n| --- | --- |')
    for stage, metrics in results.items():
        shown = ', '.join(f'{k} {v:.2f}' for k, v in metrics.items())
        print(f'| {stage} | {shown} |')
    print(f'\nwritten {osp.join(work_dir, "results.json")}')


if __name__ == '__main__':
    run_tool(main, prog=PROG)
