"""The small dense transfer study: UperNet and Mask R-CNN on the digit
scenes from each initialisation of the same ViT-mini/4 encoder, on a CPU.
From the repository root:

    python -m experiments.transfer_small               # the whole study
    python -m experiments.transfer_small --tasks segmentation --seeds 0
    python -m experiments.transfer_small --report-only  # the table so far
    python -m experiments.transfer_small --quick        # the test's run, in
        # work_dirs/transfer_small_quick

Initialisations (``INITS``): the demo's RandSAC (square 16 -> 4), RandSAC
patch-random and MAE with the matched decoder, each pretrained here on the
demo's 4,000 MNIST5k digits for the same epochs (``PRETRAININGS``, seed 0;
by default the length that ``python -m experiments.transfer_small.curve``
says pays);
the encoder's own random init; and, for segmentation, the RandSAC encoder
frozen (the pyramid and heads learn). Every run uses the task's config under
``configs/segmentation/`` or ``configs/detection/`` unchanged but for its
length, its data and its initialisation, and trains and evaluates through
mmseg's or mmdet's own Runner loops.

The study makes its scenes (``experiments.digit_scenes``) in
``<work_dir>/digit_scenes``, pretrains in ``<work_dir>/pretrain/<name>`` and
trains in ``<work_dir>/runs/<task>_<init>_seed<seed>``. Each finished
pretraining and run writes a record (settings, logged losses, metrics,
minutes; no checkpoint) to ``--records``; a record with the same settings
is reused, an interrupted run resumes from its last checkpoint, so the
study may stop and continue across sessions. The table (rows of ``task,
init, seed, metric, value``) goes to ``<records>.json`` and one picture per
task (validation scenes, ground truth and each initialisation's prediction
at the first seed, from the runs whose checkpoints are here, a report's
too) beside it.
"""
import os
import os.path as osp

from randsac_mm.cli.args import add_cfg_options, positive_int, seed_value
from randsac_mm.cli.device import use_device
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import OUTPUT_FOLDER

from .runs import INITS, TASKS, TransferSettings
from .steps import check_cfg_options, markdown, run_study

PROG = 'python -m experiments.transfer_small'

QUICK = dict(tasks=('segmentation', 'detection'), seeds=(0, ),
             inits=('randsac-square', 'random'), train_scenes=16,
             val_scenes=8, pretrain_epochs=1, pretrain_digits=64,
             segmentation_iters=4, detection_epochs=1, readout_digits=100,
             readout_scenes=16,
             # Its own folder: in the study's, its 16 scenes would replace
             # the study's and its 1-epoch pretraining resume from the
             # study's checkpoints.
             work_dir='work_dirs/transfer_small_quick')


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_argument('--tasks', nargs='+', choices=list(TASKS),
                        help='None: both')
    parser.add_argument('--inits', nargs='+', choices=list(INITS),
                        help='None: all (frozen: segmentation only)')
    parser.add_argument('--seeds', nargs='+', type=seed_value,
                        help='seeds of the downstream runs; None: 0 1')
    defaults = TransferSettings()
    for flag, text in (
            ('--train-scenes', 'training scenes'),
            ('--val-scenes', 'validation scenes'),
            ('--pretrain-epochs', 'epochs of each pretraining'),
            ('--segmentation-iters', 'iterations of each UperNet run'),
            ('--detection-epochs', 'epochs of each Mask R-CNN run')):
        default = getattr(defaults, flag[2:].replace('-', '_'))
        shown = "the config's" if default is None else default
        parser.add_argument(flag, type=positive_int,
                            help=f'{text}; None: {shown}')
    parser.add_path('--work-dir', kind=OUTPUT_FOLDER,
                    help='scenes, checkpoints and logs; None: '
                    f'{TransferSettings.work_dir}')
    parser.add_path('--records', kind=OUTPUT_FOLDER,
                    help='folder of the records and pictures; the table is '
                    f'<records>.json; None: {TransferSettings.records} '
                    '(--quick: <work-dir>/records)')
    parser.add_argument('--pretrained-from', nargs=2,
                        metavar=('WORK_DIR', 'RECORDS'),
                        help="another study's work dir and records whose "
                        'pretrainings (same epochs and digits) this one '
                        'uses: nothing is pretrained, and its minutes are '
                        'not counted again (the encoder converted for the '
                        "scenes is written beside that study's checkpoint, "
                        'as its own runs do); None: its own')
    add_cfg_options(
        parser, 'entries merged into every downstream config (and the '
        "readout's encoder), e.g. "
        'optim_wrapper.paramwise_cfg.layer_decay_rate=1.0; recorded in the '
        "records' settings; the flags above win over the keys they set; "
        'None: the configs as written')
    only = parser.add_mutually_exclusive_group()
    only.add_argument('--readout-only', action='store_true',
                      help='pretrain and read out each encoder frozen; no '
                      'downstream run')
    only.add_argument('--report-only', action='store_true',
                      help='train nothing: the table of the records so far')
    parser.add_argument('--quick', action='store_true',
                        help='the test: ' + ', '.join(
                            f'{k}={v}' for k, v in QUICK.items()))
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    values = dict(QUICK) if args.quick else {}
    for key in ('tasks', 'inits', 'seeds', 'train_scenes', 'val_scenes',
                'pretrain_epochs', 'segmentation_iters', 'detection_epochs',
                'cfg_options', 'pretrained_from', 'work_dir', 'records',
                'readout_only', 'report_only', 'quick'):
        value = getattr(args, key)
        if value not in (None, False):
            values[key] = value
    if args.quick and 'records' not in values:
        values['records'] = osp.join(values.get(
            'work_dir', TransferSettings.work_dir), 'records')
    return values


def main(argv=None):
    values = parse_args(argv)
    use_device('cpu')
    import randsac_mm.downstream  # noqa: F401  (registers)
    settings = TransferSettings(**values)
    if settings.cfg_options:
        check_cfg_options(settings)
    os.makedirs(settings.work_dir, exist_ok=True)
    result = run_study(settings, log=lambda line: print(line, flush=True))
    print('\n' + markdown(result['summary']))
    if result['token_identity']:
        print('\ntoken identity, frozen (%): ' + '; '.join(
            f"{k}: digits {v['digits']:.1f}, on the scenes' canvas "
            f"{v['canvas']:.1f}, scenes {v['scenes']:.1f}"
            for k, v in result['token_identity'].items()))
    took = result['minutes']
    print(f"wrote {settings.records.rstrip('/')}.json (minutes recorded: "
          + ', '.join(f'{k} {v:.0f}' for k, v in took.items())
          + f', {sum(took.values()):.0f} in all)')
