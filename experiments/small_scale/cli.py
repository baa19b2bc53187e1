"""The small-scale study's command (its help is the package's docstring)
and its course: every run of the plan, then the summaries, verdicts and
report."""
import argparse
import functools
import json
import os
import os.path as osp
from dataclasses import asdict, replace

from randsac_mm.cli.args import HelpFormatter, positive_int, seed_value
from randsac_mm.cli.device import DEVICES, NoUsableCuda, use_device
from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.evaluation import (
    labelled_loaders,
)
from randsac_mm.precision import CPU_PRECISIONS, cpu_precision

from . import __doc__ as COMMAND_DOC
from .plan import (
    CONFIGS,
    CURVE,
    EVAL_DATA,
    GPU_STUDY,
    LARGEST,
    LONG_CURVE,
    PROG,
    QUICK,
    READOUT_NAMES,
    SMALL_SCALE,
    VARIANTS,
    StudySettings,
)
from .runs import run_folders, run_is_recorded, run_one
from .verdicts import ordering_gaps, summarize


def _portable_paths(settings):
    """``settings`` (an ``asdict``) with its paths under the current
    directory made relative to it, so a committed study.json does not name
    the machine it ran on."""
    def portable(path):
        if path and osp.isabs(path):
            relative = osp.relpath(path)
            if not relative.startswith(os.pardir):
                return relative
        return path
    shown = dict(settings)
    for key in ('configs', 'eval_data', 'work_dir', 'data_root'):
        shown[key] = portable(shown[key])
    shown['reused_runs'] = {name: portable(path) for name, path
                            in shown['reused_runs'].items()}
    return shown


def run_study(settings, log=print):
    """Runs (or reuses) every run of the study and writes its results.

    Writes to ``settings.work_dir``: ``study.json`` (settings, every record,
    the summary per epoch, the orderings), ``study.md`` (tables),
    ``study.png`` (bars at the last epoch) and, with several read-out
    epochs, ``curve.png`` (accuracy against epochs).

    A run's report also covers the runs recorded in the work dir before it
    (other variants and seeds of the plan): the study's runs may be made one
    job at a time into one folder, and the last job's report is the
    study's, as ``--report-only`` over those variants and seeds gives it.
    ``--report-only`` reports the variants and seeds asked.

    Returns:
        dict: what study.json holds.
    """
    with cpu_precision(settings.cpu_precision):
        os.makedirs(osp.join(settings.work_dir, 'runs'), exist_ok=True)
        loaders = study_loaders(settings)
        records = []
        total = len(settings.variants) * len(settings.seeds)
        done = 0
        # Seed-major: a study stopped early has every variant at some seeds.
        for seed in settings.seeds:
            for name in settings.variants:
                done += 1
                reused = run_is_recorded(name, seed, settings)
                records_of_run = run_one(name, seed, settings, loaders)
                if not records_of_run:
                    log(f'[study {done}/{total}] {name} seed {seed}: not '
                        'recorded yet (report only)')
                records += records_of_run
                log_records(records_of_run, f'[study {done}/{total}]',
                            settings, log, reused)
        if settings.report_only:
            return write_results(records, settings)
        reported = with_runs_recorded_before(settings, log)
        if reported is not settings:
            # In the order --report-only over them gives: seed-major, the
            # plan's order of variants.
            recorded = replace(reported, report_only=True)
            records = [record for seed in reported.seeds
                       for name in reported.variants
                       for record in run_one(name, seed, recorded, loaders)]
        return write_results(records, reported)


def with_runs_recorded_before(settings, log=print):
    """``settings`` widened to the variants and seeds of every other run of
    the plan recorded in the work dir with these settings (``settings``
    itself when there is none), logging which runs it adds."""
    asked = {(name, seed) for name in settings.variants
             for seed in settings.seeds}
    found = [(name, seed) for name, seed in run_folders(settings)
             if (name, seed) not in asked
             and run_is_recorded(name, seed, settings)]
    if not found:
        return settings
    names = {name for name, _ in found} | set(settings.variants)
    seeds = {seed for _, seed in found} | set(settings.seeds)
    log(f'[report] with the {len(found)} runs recorded in --work-dir '
        'before: ' + ', '.join(f'{name} seed {seed}' for name, seed in found))
    return replace(settings, seeds=sorted(seeds),
                   variants=[v for v in settings.plan.variants if v in names])


def study_loaders(settings):
    """The labelled (train, test) loaders of the readouts, as a function
    that builds them at its first call (at the first readout not recorded
    yet: a report of recorded runs, e.g. a clone's committed records,
    needs no data) and returns the same ones after."""
    @functools.cache
    def loaders():
        return labelled_loaders(
            settings.eval_data, settings.probe_images or settings.train_images,
            settings.test_images, settings.data_root)
    return loaders


def log_records(records, prefix, settings, log, reused=False):
    """One line per record of :func:`run_one`: its readouts, and whether
    they were ``reused`` from the work dir's records rather than run."""
    for record in records:
        shown = ', '.join(f'{READOUT_NAMES[r]} {record[r]:.2f}%'
                          for r in settings.readouts)
        log(f"{prefix} {record['variant']} seed {record['seed']} epoch "
            f"{record['epoch']}: {shown}"
            + (' (recorded in --work-dir: reused)' if reused else ''))


def write_results(records, settings):
    """Summarises ``records`` (of :func:`run_one`) and writes the report
    (see :func:`run_study`); returns what study.json holds."""
    if not records:
        raise UserError(f'--work-dir {settings.work_dir}: no run of these '
                        'settings is recorded there; give the folder that '
                        'holds the records, or run the study without '
                        '--report-only first')
    result = study_result(records, settings)
    from .report import write_report
    write_report(result, settings)
    return result


def study_result(records, settings):
    """What study.json holds: the settings, ``records``, the summary per
    read-out epoch, the orderings with their verdicts under the settings'
    design, the design, and the minutes of pretraining."""
    # The untrained encoder (epoch 0) is the baseline at every epoch.
    summaries = {epoch: summarize(
        [r for r in records if r['epoch'] in (0, epoch)], settings.variants,
        settings.readouts, settings.plan) for epoch in settings.eval_epochs}
    design = settings.study_design()
    orderings = ordering_gaps(summaries, settings.readouts, design,
                              settings.plan)
    shown = {k: v for k, v in asdict(settings).items() if k != 'design'}
    return dict(settings=dict(_portable_paths(shown),
                              plan=settings.plan.name),
                records=records,
                summary={str(e): s for e, s in summaries.items()},
                orderings=orderings,
                design=design.as_dict(),
                pretrain_minutes=sum(
                    r['pretrain_minutes'] for r in records
                    if r['epoch'] == settings.eval_epochs[-1]))


def rewrite_report(path, design=None):
    """Writes a committed report (``path``, a study.json) and its markdown
    beside it (``.md``) again from the records it holds, under the current
    rule and ``design`` (None: the design of its own settings). The
    5-epoch table keeps its runs' records only in its report.

    Raises:
        UserError: ``path`` is not a small-scale study's report.
    """
    from randsac_mm.checkpoint import write_json
    try:
        with open(path) as f:
            old = json.load(f)
        shown = dict(old['settings'])
        records = old['records']
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UserError(f'--from-json {path}: not a study report with '
                        f'settings and records ({e})') from None
    if shown.pop('plan', SMALL_SCALE.name) != SMALL_SCALE.name:
        raise UserError(f'--from-json {path}: a report of another plan; '
                        f'this command rewrites {SMALL_SCALE.name} reports')
    settings = StudySettings(**dict(shown, report_only=True, design=design))
    result = study_result(records, settings)
    write_json(path, result)
    from .report import markdown
    with open(osp.splitext(path)[0] + '.md', 'w') as f:
        f.write(markdown(result))
    return result


def add_settings_args(parser, variants, defaults):
    """Adds the arguments of a study's settings (``StudySettings``' fields
    a command sets) to ``parser``, each default said by ``defaults``
    ({dest: what None means}); every argument defaults to None."""
    def add(flag, dest, help, **kwargs):
        parser.add_argument(flag, dest=dest, **kwargs,
                            help=f'{help}; None: {defaults[dest]}'
                            if dest in defaults else help)
    add('--variants', 'variants', "the variants run, each a study's config",
        nargs='+', choices=list(variants))
    add('--seeds', 'seeds', 'one run per variant and seed', nargs='+',
        type=seed_value)
    add('--epochs', 'epochs', 'pretraining epochs', type=positive_int)
    add('--probe', 'readouts', 'readouts', nargs='+',
        choices=list(READOUT_NAMES))
    add('--train-images', 'train_images', "the first so many training "
        "images pretrain, and train the probes unless --probe-images",
        type=positive_int)
    add('--test-images', 'test_images', 'test images',
        type=positive_int)
    add('--probe-images', 'probe_images', 'labelled training images the '
        'probes train on and the k-NN searches', type=positive_int)
    add('--probe-epochs', 'probe_epochs', 'probe epochs on the cached '
        'features', type=positive_int)
    add('--probe-seeds', 'probe_seeds', 'train the probes once per probe '
        'seed on the same features and record their mean', nargs='+',
        type=seed_value)
    add('--data-root', 'data_root', "folder of the Fashion-MNIST IDX "
        "files (Debian's dataset-fashion-mnist: "
        '/usr/share/datasets/fashion-mnist)')
    add('--work-dir', 'work_dir', 'folder of the runs (checkpoints, '
        'records) and the report')
    add('--device', 'device', 'cpu (any GPU is hidden): bf16 '
        'pretraining and features where the CPU has bf16 instructions, else '
        'float32; cuda: bf16 pretraining, the features extracted and the '
        'probes trained on the GPU, or exit code 2 if CUDA cannot be used',
        choices=DEVICES)


def parse_args(argv=None):
    """The arguments, with the preset's values where none was given (so
    ``--gpu-study --seeds 0 1 2`` runs three seeds), and the parser.

    Defaults left None here are StudySettings' own (seeds 0 1 2, 90 probe
    epochs, ...), except ``device``, resolved to 'cpu' here.
    """
    parser = argparse.ArgumentParser(prog=PROG, description=COMMAND_DOC,
                                     formatter_class=HelpFormatter)
    add_settings_args(parser, VARIANTS, dict(
        variants='the 12 of the table', seeds='0 1 2',
        epochs="the configs' 5", readouts='linear knn',
        train_images="the configs' 6000", test_images='all 10,000',
        probe_images='--train-images', probe_epochs='90',
        probe_seeds='one probe, seeded with the run\'s seed',
        data_root="the configs'",
        work_dir="the preset's, else work_dirs/small_scale_study",
        device='cpu'))
    parser.add_argument('--eval-epochs', type=positive_int, nargs='+',
                        help="epochs whose checkpoints are read out, the last"
                        " being the run's length: a learning curve from one "
                        'run per seed; None: the last epoch')
    parser.add_argument('--cpu-precision', choices=CPU_PRECISIONS,
                        help='the precision of every CPU (pretraining and '
                        'features), so that runs of machines with and '
                        'without bf16 instructions are runs of one '
                        "precision; None: the preset's (--curve, "
                        '--long-curve: float32), else the CPU\'s own (bf16 '
                        'where it has bf16 instructions, else float32) or '
                        'RANDSAC_CPU_PRECISION\'s. CPU runs only')
    parser.add_argument('--report-only', action='store_true',
                        help='train and evaluate nothing: write the report '
                        'of the runs already recorded in --work-dir (a '
                        'study under way)')
    parser.add_argument('--from-json', metavar='STUDY_JSON',
                        help='with --report-only: the records are those a '
                        "report holds (the 5-epoch table's, "
                        'docs/benchmarks/small_scale_study.json): write it '
                        'and its .md again under the current verdict rule, '
                        "with the preset's design, else its own settings'. "
                        'None: records are read from --work-dir')
    add_debug_arg(parser)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--quick', action='store_true',
                      help='3 variants, 1 seed, 1 epoch on 256 images: what '
                      'the test suite runs')
    mode.add_argument('--curve', action='store_true',
                      help='the training-length study: ' + ', '.join(
                          f'{k}={v}' for k, v in CURVE.items()))
    mode.add_argument('--long-curve', action='store_true',
                      help='the training-length study at 150 epochs: ' +
                      ', '.join(f'{k}={v}' for k, v in LONG_CURVE.items()))
    mode.add_argument('--largest-orderings', action='store_true',
                      help="the paper's two largest orderings at 150 "
                      'epochs, declared before their runs (random over '
                      'raster, transformer-skip over two-stream, linear '
                      'probe): ' + ', '.join(
                          f'{k}={v}' for k, v in LARGEST.items()
                          if k not in ('plan', 'design')))
    mode.add_argument('--gpu-study', action='store_true',
                      help='the curve on all images, for one H100 in about '
                      '15 minutes (an estimate): ' + ', '.join(
                          f'{k}={v}' for k, v in GPU_STUDY.items()))
    # A preset's (StudySettings' design, plan and reused_runs).
    parser.set_defaults(design=None, plan=None, reused_runs=None)
    args = parser.parse_args(argv)
    if args.from_json and not args.report_only:
        parser.error('argument --from-json: rewrites a report; give '
                     '--report-only with it')
    preset = QUICK if args.quick else CURVE if args.curve else \
        LONG_CURVE if args.long_curve else \
        LARGEST if args.largest_orderings else \
        GPU_STUDY if args.gpu_study else {}
    asked_precision = args.cpu_precision
    for key, value in preset.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.device = args.device or 'cpu'
    if args.device != 'cpu' and asked_precision is None:
        args.cpu_precision = None  # a preset's: a GPU run has its own
    return args, parser


def main(argv=None):
    args, parser = parse_args(argv)
    # Before anything asks torch for GPUs (importing mmengine does). A
    # report trains nothing, so it needs no GPU: --report-only hides them
    # and still reports the runs recorded for --device.
    try:
        use_device('cpu' if args.report_only else args.device)
    except NoUsableCuda as e:
        parser.exit(2, f'{parser.prog}: error: argument --device: {e}\n')
    import randsac_mm.registration  # noqa: F401  (registers)

    from .report import markdown
    if args.from_json:
        result = rewrite_report(args.from_json, args.design)
        print(markdown(result))
        print(f'wrote {args.from_json} and its .md')
        return
    # A setting out of range: StudySettings' ValueError, one line (run_tool).
    settings = StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA,
        **{k: getattr(args, k) for k in (
            'variants', 'seeds', 'epochs', 'eval_epochs', 'readouts',
            'train_images', 'test_images', 'probe_images', 'probe_epochs',
            'probe_seeds', 'data_root', 'work_dir', 'device', 'quick',
            'report_only', 'cpu_precision', 'design', 'plan',
            'reused_runs')
            if getattr(args, k) is not None})
    result = run_study(settings, log=lambda line: print(line, flush=True))
    print('\n' + markdown(result))
    outputs = 'study.json, study.md, study.png' + (
        ', curve.png' if len(settings.eval_epochs) > 1 else '')
    print(f'wrote {settings.work_dir}/{{{outputs}}} '
          f"({result['pretrain_minutes']:.0f} min of pretraining on "
          f'{settings.device})')

