r"""The paper's CIFAR-scale rows on one GPU, run by run: the paper-scale
study. From the repository root:

    python -m experiments.paper_scale --plan      # what is done, what
        # remains, minutes per run: docs/benchmarks/paper_scale/plan.md
    python -m experiments.paper_scale --budget-minutes 8   # on a GPU: the
        # next run, and more while they fit in 8 minutes; commit the
        # records after
    python -m experiments.paper_scale --report-only   # the orderings so far
    python -m experiments.paper_scale --quick     # the test's run (CPU)

Each variant is a row of ``configs/paper_scale/`` (ViT-T/4, the appendix's
CIFAR10 recipe at batch 512, on Fashion-MNIST's 60,000 training images and
the batch data path; its header cites the paper row). A run (variant x
seed) pretrains the row, compiled, in bf16 on CUDA, and reads out its
frozen encoder at the paper's protocol: the linear probe on the features
of all 60,000 training images, tested on the 10,000 test images, a
weighted k-NN and an attentive probe (``randsac_mm.evaluation``; features
extracted on the GPU). ``random`` is the untrained encoder.

The runs go in the plan's order: the variants of the key orderings (random
over raster, squares over patches, blobs over patches, coherent over
shuffled, skip over plain) at every seed first, then the others. A command
runs the runs not yet recorded, in that order: the first, then more while
the next one's estimate fits in what is left of ``--budget-minutes``. Each
run's records (settings, losses, readouts, device, minutes; never its
checkpoints) are copied to ``--records`` (default
``docs/benchmarks/paper_scale/``), to be committed; a run recorded there is
done on any machine. A run interrupted on this machine resumes from its last
checkpoint in ``--work-dir`` (every 10 epochs). The report (``study.md``,
``study.json``, ``study.png``, beside the records) states each ordering with
its seeds, gap and standard error, the paper's figures beside it, and what
did not come out as the paper says.

Speed, for the estimates: the records' own minutes once runs are recorded
on the device; before, ``docs/benchmarks/gpu/paper_scale_speed.json``
(``python -m experiments.benchmarks.paper_scale_speed --device cuda
--compile``);
before that, the goal of 30,000 images a second.
"""
import dataclasses
import glob
import json
import os
import os.path as osp
import shutil
import statistics
import time

from randsac_mm._cli.args import positive_float
from randsac_mm._cli.device import NoUsableCuda, use_device
from randsac_mm._cli.errors import UserError, add_debug_arg, run_tool
from randsac_mm._cli.parser import ToolParser
from randsac_mm._cli.paths import OUTPUT_FOLDER
from randsac_mm.evaluation import accuracy_readouts

from . import REPO_ROOT
from . import study as small
from .records import load_record, read_record
from .study import StudyPlan, StudySettings

__all__ = ['PAPER_SCALE', 'QUICK', 'plan_runs', 'run_paper_scale']

PROG = 'python -m experiments.paper_scale'
CONFIGS = osp.join(REPO_ROOT, 'configs', 'paper_scale')
EVAL_DATA = small.EVAL_DATA
SPEED = osp.join(REPO_ROOT, 'docs', 'benchmarks', 'gpu',
                 'paper_scale_speed.json')
# The goal on one H100, for estimates before any measurement.
GOAL_IMAGES_PER_S = 30000
FASHION_MNIST_TRAIN = 60000


def _row(name):
    """The config file of a row of configs/paper_scale."""
    return f'{name}_1xb512-200e_fashion-mnist.py'


# Each variant's config; its paper row and the paper's orderings are the
# small-scale study's (the same rows of the same tables).
CONFIG_NAMES = {
    'patch-raster': 'randsac_vit-tiny-p4_patch-raster',
    'patch-random': 'randsac_vit-tiny-p4_patch-random',
    'square-m2': 'randsac_vit-tiny-p4_square-m2',
    'blob-k7': 'randsac_vit-tiny-p4_blob-k7',
    'blob-k7-shuffle': 'randsac_vit-tiny-p4_blob-k7-shuffle',
    'transformer': 'randsac_vit-tiny-p4_blob-11to5_transformer',
    'transformer-skip': 'randsac_vit-tiny-p4_blob-11to5_transformer-skip',
    'random': None,
    'square-16to4': 'randsac_vit-tiny-p4_square-m2-16to4',
    'two-stream': 'randsac_vit-tiny-p4_blob-11to5_two-stream',
    'mae': 'mae_vit-tiny-p4',
}
# The key orderings first (random over raster, squares over patches, blobs
# over patches, coherent over shuffled, skip over plain), then the rest.
ORDERING_PAIRS = [
    ('patch-raster', 'patch-random'), ('patch-random', 'square-m2'),
    ('patch-random', 'blob-k7'), ('blob-k7-shuffle', 'blob-k7'),
    ('transformer', 'transformer-skip'), ('random', 'square-m2'),
    ('square-m2', 'square-16to4'), ('two-stream', 'transformer'),
    ('mae', 'transformer-skip')]
PAPER_SCALE = StudyPlan(
    'paper-scale',
    variants={name: (config and _row(config), small.VARIANTS[name][1])
              for name, config in CONFIG_NAMES.items()},
    random_base=_row(CONFIG_NAMES['square-m2']),
    orderings=[next(o for o in small.ORDERINGS if o[:2] == pair)
               for pair in ORDERING_PAIRS],
    # Fashion-MNIST's standard files, wherever a machine keeps them.
    records_data_root=False)
# The variants of the key orderings (the first five), run first.
KEY_VARIANTS = list(dict.fromkeys(
    name for worse, better, _ in PAPER_SCALE.orderings[:5]
    for name in (worse, better)))
# The study on a GPU: the paper's readouts on all images, compiled, bf16.
DEFAULTS = dict(seeds=[0, 1, 2], readouts=list(accuracy_readouts()),
                probe_images=FASHION_MNIST_TRAIN, device='cuda',
                compile=True, work_dir='work_dirs/paper_scale',
                records='docs/benchmarks/paper_scale')
# What the test suite runs on the CPU: 3 variants, 1 seed, 1 epoch on 256
# images, the loader in the main process.
QUICK = dict(variants=['random', 'patch-raster', 'patch-random'], seeds=[0],
             epochs=1, train_images=256, test_images=256, probe_images=256,
             probe_epochs=5, device='cpu', compile=False, workers=0,
             work_dir='work_dirs/paper_scale_quick')
RUN_FILES = ('pretrain.json', 'eval_epoch*.json')
# Minutes of a run's readouts until one is recorded: features of 70,000
# images and the 90-epoch probes on the GPU (an assumption, on the safe
# side, so that a budget does not start a run it cannot finish).
ASSUMED_READOUT_MINUTES = 3.0


def plan_runs(settings):
    """The study's runs as (variant, seed), in the order they are run: the
    key orderings' variants at every seed (seed-major), then the others."""
    key = [v for v in KEY_VARIANTS if v in settings.variants]
    rest = [v for v in settings.variants if v not in key]
    return [(v, s) for group in (key, rest) for s in settings.seeds
            for v in group]


def _records_dir(records, name, seed):
    return osp.join(records, 'runs', f'{name}_seed{seed}')


def _run_files(folder):
    return [p for pattern in RUN_FILES
            for p in sorted(glob.glob(osp.join(folder, pattern)))]


def restore(name, seed, settings, records):
    """Copies a run's committed records, all of them, into the work dir
    (where the study finds them) when the work dir has none of its own (a
    run of this machine, finished or under way, is left as it is)."""
    source = _records_dir(records, name, seed)
    target = small.run_dir(name, seed, settings)
    if not _run_files(source) or _run_files(target):
        return
    os.makedirs(target, exist_ok=True)
    for path in _run_files(source):
        shutil.copy2(path, target)


def keep(name, seed, settings, records):
    """Copies a finished run's records (not its checkpoints) to
    ``records``; refuses to replace records of other settings there
    (UserError naming ``--records``)."""
    source = small.run_dir(name, seed, settings)
    target = _records_dir(records, name, seed)
    ran = load_record(osp.join(source, 'pretrain.json'))
    if ran is not None:  # a run without pretraining has no such record
        read_record(osp.join(target, 'pretrain.json'), ran['settings'],
                    '--records')  # refuses records of other settings
    os.makedirs(target, exist_ok=True)
    for path in _run_files(source):
        shutil.copy2(path, target)


def is_done(name, seed, settings):
    """Whether every readout of the run is recorded in the work dir for
    these settings (a run of other settings is not done: running it says
    so)."""
    report = dataclasses.replace(settings, report_only=True)
    try:
        return bool(small.run_one(name, seed, report, loaders=None))
    except UserError:  # the work dir holds a run of other settings
        return False


def recorded_minutes(name, seed, settings):
    """(pretraining, readout) minutes the work dir records for a run of
    these settings; None for what it does not record (a resumed run's
    pretraining: its record times the last start only)."""
    folder = small.run_dir(name, seed, settings)
    pretrain = readouts = None
    done = load_record(osp.join(folder, 'pretrain.json'))
    if done is not None and not done.get('resumed_from'):
        pretrain = done['minutes']
    evals = [small.recorded_readouts(name, seed, epoch, settings,
                                     small.checkpoint_name(epoch))[0]
             for epoch in settings.eval_epochs]
    if PAPER_SCALE.variants[name][0] is None:
        pretrain = 0.0
        evals = [small.recorded_readouts(name, seed, 0, settings)[0]]
    if all('eval_minutes' in e for e in evals):
        readouts = sum(e['eval_minutes'] for e in evals)
    return pretrain, readouts


def estimates(settings, runs):
    """Estimated (pretraining, readout) minutes of one run, and what each
    rests on: the mean of the runs recorded with these settings, else the
    measured speed (pretraining) or the goal, and
    ``ASSUMED_READOUT_MINUTES`` (readouts)."""
    recorded = [recorded_minutes(name, seed, settings) for name, seed in runs
                if PAPER_SCALE.variants[name][0] is not None and
                is_done(name, seed, settings)]
    pretrained = [p for p, _ in recorded if p is not None]
    read = [r for _, r in recorded if r is not None]
    readout = (statistics.fmean(read), f'mean of {len(read)} recorded') \
        if read else (ASSUMED_READOUT_MINUTES, 'assumed, not measured yet')
    if pretrained:
        return (statistics.fmean(pretrained),
                f'mean of {len(pretrained)} recorded'), readout
    epochs = settings.epochs or settings.config_epochs()
    images = settings.train_images or FASHION_MNIST_TRAIN
    rate, source = GOAL_IMAGES_PER_S, (
        f'the goal of {GOAL_IMAGES_PER_S:,} images/s, not measured yet')
    if osp.exists(SPEED):
        with open(SPEED) as f:
            speed = json.load(f)
        measured = [r['images_per_s'] for r in speed['rows']
                    if r['path'] == 'on_device']
        if measured:
            rate, source = measured[0], (
                f"{measured[0]:,.0f} images/s measured on "
                f"{speed['machine'].get('gpu')} "
                f'({osp.relpath(SPEED, REPO_ROOT)})')
    return (epochs * images / rate / 60, source), readout


def run_minutes(name, pretrain, readout):
    """A run's estimated minutes (the untrained encoder: readouts only)."""
    return (0.0 if PAPER_SCALE.variants[name][0] is None else pretrain) + \
        readout


def plan_markdown(settings, records):
    """The plan: each run in order, done or not, its minutes (recorded or
    estimated), and the minutes left."""
    runs = plan_runs(settings)
    for name, seed in runs:
        restore(name, seed, settings, records)
    (pretrain, pretrain_source), (readout, readout_source) = estimates(
        settings, runs)
    lines = ['# Paper-scale study: the plan', '',
             f'Written by `{PROG} --plan`. The runs go in this order; a '
             'command runs the next one, and more while they fit its '
             '`--budget-minutes` (docs/paper_scale.md).', '',
             f'Estimates on {settings.device}: pretraining about '
             f'{pretrain:.1f} minutes a run ({pretrain_source}); readouts '
             f'about {readout:.1f} minutes ({readout_source}).', '',
             '| # | variant | seed | paper row | status | minutes |',
             '| ---: | --- | ---: | --- | --- | ---: |']
    left = 0.0
    to_run = 0
    for i, (name, seed) in enumerate(runs, start=1):
        if is_done(name, seed, settings):
            parts = recorded_minutes(name, seed, settings)
            minutes = '-' if None in parts else f'{sum(parts):.1f}'
            status = 'done'
        else:
            estimate = run_minutes(name, pretrain, readout)
            minutes = f'{estimate:.1f}'
            status, left, to_run = 'to run', left + estimate, to_run + 1
        lines.append(f'| {i} | {name} | {seed} | '
                     f'{PAPER_SCALE.variants[name][1]} | {status} | '
                     f'{minutes} |')
    lines += ['', f'{to_run} runs to go, about {left:.0f} minutes.',
              '', 'Orderings, the key ones first:', '']
    lines += [f'{i}. {worse} < {better}: {paper}' for i, (worse, better, paper)
              in enumerate(PAPER_SCALE.orderings, start=1)]
    return '\n'.join(lines) + '\n'


def run_paper_scale(settings, records, budget_minutes=None, log=print,
                    whole_runs_only=False):
    """Runs the runs not yet recorded, in the plan's order, keeping each
    one's records in ``records``; then reports every recorded run.

    With ``budget_minutes``, a run is started while its estimate fits in
    what is left, and the first run always: one longer than a whole budget
    goes on where the command stops it, from its last checkpoint (every
    10 epochs), in the next command on this machine. With
    ``whole_runs_only`` the first run too must fit (a machine given back
    after the command: a run cut short there is lost).

    Returns:
        dict | None: what study.json holds (see ``experiments.study``);
        None when no run of these settings is recorded yet.
    """
    loaders = small.study_loaders(settings)
    runs = plan_runs(settings)
    start = time.time()
    started = 0
    for name, seed in runs:
        restore(name, seed, settings, records)
    for i, (name, seed) in enumerate(runs, start=1):
        if settings.report_only or is_done(name, seed, settings):
            continue
        (pretrain, _), (readout, _) = estimates(settings, runs)
        estimate = run_minutes(name, pretrain, readout)
        spent = (time.time() - start) / 60
        if budget_minutes is not None and (started or whole_runs_only) \
                and spent + estimate > budget_minutes:
            log(f'[paper-scale {i}/{len(runs)}] {name} seed {seed}: about '
                f'{estimate:.1f} min, {budget_minutes - spent:.1f} left: '
                'stopping here')
            break
        started += 1
        small.log_records(small.run_one(name, seed, settings, loaders),
                          f'[paper-scale {i}/{len(runs)}]', settings, log)
        keep(name, seed, settings, records)
    report = dataclasses.replace(settings, report_only=True)
    found = [r for name, seed in runs
             for r in small.run_one(name, seed, report, loaders=None)]
    if not found:
        return None
    result = small.write_results(found, settings)
    for name in ('study.json', 'study.md', 'study.png'):
        shutil.copy2(osp.join(settings.work_dir, name), records)
    return result


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    small.add_settings_args(parser, PAPER_SCALE.variants, dict(
        variants='all 11 rows', seeds='0 1 2', epochs="the configs' 200",
        readouts='all three', train_images='all 60,000',
        test_images='all 10,000', probe_images='all 60,000',
        probe_epochs="90, the paper's", data_root="the configs'",
        work_dir=DEFAULTS['work_dir'] + ' (--quick: ' + QUICK['work_dir']
        + ')', device='cuda (--quick: cpu)'))
    parser.add_path('--records', kind=OUTPUT_FOLDER,
                    help='the records to commit, the plan and the '
                    'report; None: docs/benchmarks/paper_scale '
                    '(--quick: <work-dir>/records)')
    parser.add_argument('--budget-minutes', type=positive_float,
                        help='after the first run, start no run whose '
                        'estimate does not fit in what is left of these '
                        'minutes; None: no limit')
    parser.add_argument('--whole-runs-only', action='store_true',
                        help='with --budget-minutes: the first run too '
                        'starts only if its estimate fits (a machine given '
                        'back after the command, where a run cut short is '
                        'lost)')
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--plan', action='store_true',
                      help='train nothing: print the plan and write '
                      '<records>/plan.md')
    mode.add_argument('--report-only', action='store_true',
                      help='train nothing: report the recorded runs')
    parser.add_argument('--quick', action='store_true',
                        help='the test suite\'s CPU run: ' + ', '.join(
                            f'{k}={v}' for k, v in QUICK.items()))
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    if args.whole_runs_only and args.budget_minutes is None:
        parser.error('argument --whole-runs-only: applies with '
                     '--budget-minutes only')
    preset = dict(DEFAULTS, **QUICK) if args.quick else DEFAULTS
    for key, value in preset.items():
        if getattr(args, key, None) is None:
            setattr(args, key, value)
    if args.quick and args.records == DEFAULTS['records']:
        args.records = osp.join(args.work_dir, 'records')
    return parser, args


def main(argv=None):
    parser, args = parse_args(argv)
    try:
        use_device('cpu' if args.plan or args.report_only else args.device)
    except NoUsableCuda as e:
        parser.exit(2, f'{parser.prog}: error: argument --device: {e}\n')
    import randsac_mm.registration  # noqa: F401  (registers)
    settings = StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA, plan=PAPER_SCALE,
        report_only=args.report_only,
        **{k: getattr(args, k) for k in (
            'variants', 'seeds', 'epochs', 'readouts', 'train_images',
            'test_images', 'probe_images', 'probe_epochs', 'data_root',
            'work_dir', 'device', 'compile', 'workers')
            if getattr(args, k, None) is not None},
        quick=args.quick)
    os.makedirs(args.records, exist_ok=True)
    if args.plan:
        text = plan_markdown(settings, args.records)
        with open(osp.join(args.records, 'plan.md'), 'w') as f:
            f.write(text)
        print(text + f'\nwrote {args.records}/plan.md')
        return
    from .study.report import markdown
    result = run_paper_scale(settings, args.records, args.budget_minutes,
                             log=lambda line: print(line, flush=True),
                             whole_runs_only=args.whole_runs_only)
    if result is None:
        print(f'{args.work_dir}: no run of these settings is recorded yet: '
              'no report')
        return
    print('\n' + markdown(result))
    print(f'wrote {args.records}/{{study.json, study.md, study.png}} and '
          'the runs\' records')


if __name__ == '__main__':
    run_tool(main, prog=PROG)
