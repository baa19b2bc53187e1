"""The paper-scale study's command (its help is the package's docstring)
and its course: the runs of the plan that fit the budget, then the
report."""
import dataclasses
import os
import os.path as osp
import shutil
import time

from randsac_mm.cli.args import positive_float
from randsac_mm.cli.device import NoUsableCuda, use_device
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import OUTPUT_FOLDER

from .. import small_scale as small
from ..small_scale import StudySettings
from . import __doc__ as COMMAND_DOC
from .carry import is_done, keep, restore
from .estimates import estimates, plan_markdown, run_minutes
from .plan import (
    CONFIGS,
    DEFAULTS,
    EVAL_DATA,
    PAPER_SCALE,
    PROG,
    QUICK,
    plan_runs,
)


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
        dict | None: what study.json holds (see ``experiments.small_scale``);
        None when no run of these settings is recorded yet.
    """
    loaders = small.study_loaders(settings)
    runs = plan_runs(settings)
    start = time.time()
    started = 0
    for name, seed in runs:
        restore(name, seed, settings, records)
    for i, (name, seed) in enumerate(runs, start=1):
        if settings.report_only:
            continue
        if is_done(name, seed, settings):
            log(f'[paper-scale {i}/{len(runs)}] {name} seed {seed}: '
                'recorded in --records: reused')
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
    parser = ToolParser(prog=PROG, description=COMMAND_DOC)
    small.add_settings_args(parser, PAPER_SCALE.variants, dict(
        variants='all 11 rows', seeds='0 1 2', epochs="the configs' 200",
        readouts='all three', train_images='all 60,000',
        test_images='all 10,000', probe_images='all 60,000',
        probe_epochs="90, the paper's", probe_seeds='one probe',
        data_root="the configs'",
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
            'test_images', 'probe_images', 'probe_epochs', 'probe_seeds',
            'data_root', 'work_dir', 'device', 'compile', 'workers')
            if getattr(args, k, None) is not None},
        quick=args.quick)
    os.makedirs(args.records, exist_ok=True)
    if args.plan:
        text = plan_markdown(settings, args.records)
        with open(osp.join(args.records, 'plan.md'), 'w') as f:
            f.write(text)
        print(text + f'\nwrote {args.records}/plan.md')
        return
    from ..small_scale.report import markdown
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

