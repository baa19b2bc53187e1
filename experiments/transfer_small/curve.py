"""The dense transfer along pretraining length: UperNet on the digit scenes
from RandSAC square, RandSAC patch-random and MAE, each pretrained for
several lengths, against random init at the same seeds, on a CPU.
From the repository root:

    python -m experiments.transfer_small.curve  # 10, 40 and 160 epochs
    python -m experiments.transfer_small.curve --epochs 40  # one length
    python -m experiments.transfer_small.curve --report-only

Each length is one run of the small dense transfer study
(``python -m experiments.transfer_small``, whose settings the others keep)
in ``<work_dir>/epochs_<N>``, its records in ``<records>/epochs_<N>``;
random init, which no pretraining length changes, runs once, in
``<work_dir>/random`` and ``<records>/random``. Every record of the same
settings is reused and an interrupted run resumes, so the curve is built
over several sittings, one heavy job at a time. ``--tasks detection`` runs
Mask R-CNN instead (for example at the longest length only).

The report, ``<records>.json``, ``.md`` and ``.png``: for each length and
pretraining, the gain over random init with its standard error and
p-value, paired by seed (Welch's test where one side has seeds the other
lacks), and RandSAC against MAE the same way; a gap is decided at
p < 0.05 from three seeds a side (``experiments.seed_statistics``). The
picture: the gain against the pretraining epochs, one line per
pretraining.
"""
PROG = 'python -m experiments.transfer_small.curve'
if __name__ == '__main__':  # Ctrl-C in the imports below: one line
    from randsac_mm.cli.errors import interrupt_quietly
    interrupt_quietly(PROG)

import os
import os.path as osp
import statistics
from dataclasses import replace

from randsac_mm.cli.args import positive_int, seed_value
from randsac_mm.cli.device import use_device
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import OUTPUT_FOLDER, write_json

from ..seed_statistics import compare, p_cell, verdict
from .runs import TASKS, TransferSettings
from .steps import by_seed, run_study

PRETRAINED = ('randsac-square', 'randsac-patch-random', 'mae')
RANDSAC = ('randsac-square', 'randsac-patch-random')
DEFAULTS = dict(epochs=(10, 40, 160), seeds=(0, 1, 2), inits=PRETRAINED,
                tasks=('segmentation', ), work_dir='work_dirs/transfer_curve',
                records='docs/benchmarks/transfer_curve')


def studies(epochs, seeds, inits, tasks, work_dir, records,
            report_only=False):
    """The study settings of the curve: random init first (needed by every
    length's gains), then each length's pretrainings.

    Returns:
        list[tuple[int | None, TransferSettings]]: (pretraining epochs, or
        None for random init; the settings).
    """
    base = TransferSettings(tasks=tuple(tasks), seeds=tuple(seeds),
                            report_only=report_only)
    out = [(None, replace(base, inits=('random', ),
                          work_dir=osp.join(work_dir, 'random'),
                          records=osp.join(records, 'random')))]
    for n in epochs:
        out.append((n, replace(base, inits=tuple(inits), pretrain_epochs=n,
                               work_dir=osp.join(work_dir, f'epochs_{n}'),
                               records=osp.join(records, f'epochs_{n}'))))
    return out


def curve_entries(results):
    """The curve's figures from each study's table.

    Args:
        results (list[tuple[int | None, dict]]): (epochs or None, the
            study's result: its ``rows``).

    Returns:
        dict: ``points`` (per task, metric, length and pretraining: the
        mean, the gain over random init with its SE, the verdict) and
        ``randsac_vs_mae`` (per length, each RandSAC against MAE).
    """
    random_rows = [r for n, result in results if n is None
                   for r in result['rows']]
    points, versus = [], []
    for n, result in results:
        if n is None:
            continue
        for task, spec in TASKS.items():
            for metric in spec['metrics']:
                random = by_seed(random_rows, task, metric, 'random')
                values = {i: by_seed(result['rows'], task, metric, i)
                          for i in PRETRAINED}
                for init, mine in values.items():
                    if not mine:
                        continue
                    gain = compare(mine, random)
                    points.append(dict(
                        task=task, metric=metric, epochs=n, init=init,
                        seeds=sorted(mine),
                        mean=statistics.fmean(mine.values()),
                        gain_over_random=gain, verdict=gain and verdict(
                            gain, 'above random init', 'below random init')))
                for init in RANDSAC:
                    gap = compare(values[init], values['mae'])
                    if gap:
                        versus.append(dict(
                            task=task, metric=metric, epochs=n, init=init,
                            **gap, verdict=verdict(gap, 'RandSAC above',
                                                  'MAE above')))
    random = [dict(task=task, metric=metric,
                   values=by_seed(random_rows, task, metric, 'random'))
              for task, spec in TASKS.items() for metric in spec['metrics']]
    return dict(points=points, randsac_vs_mae=versus,
                random=[r for r in random if r['values']])


def _pm(gap):
    """'+2.29 ± 1.08' (no SE from one seed)."""
    if gap is None:
        return ''
    se = '' if gap['se'] is None else f" ± {gap['se']:.2f}"
    return f"{gap['gap']:+.2f}{se}"


def _count(gap):
    """The seeds of a comparison: '3', or '5/3' where the sides differ."""
    better, worse = gap['sizes']
    return str(better) if better == worse else f'{better}/{worse}'


def _test(gap):
    """The test's p-value, and which test where it is Welch's."""
    if gap is None:
        return ''
    return p_cell(gap) + (' (Welch)' if gap['test'] == 'welch' else '')


def markdown(curve):
    """The curve's two tables."""
    lines = []
    for r in curve['random']:
        values = ', '.join(f'{v:.2f}' for v in r['values'].values())
        lines.append(f"Random init, {r['task']} {r['metric']}: "
                     f"{statistics.fmean(r['values'].values()):.2f} "
                     f"(seeds {', '.join(map(str, r['values']))}: "
                     f'{values})')
    lines += ['', '| task | metric | pretraining epochs | initialisation | '
              'seeds | mean | gain over random init ± SE | p | verdict |',
              '| --- | --- | --- | --- | --- | --- | --- | --- | --- |']
    for p in curve['points']:
        lines.append(
            f"| {p['task']} | {p['metric']} | {p['epochs']} | {p['init']} "
            f"| {len(p['seeds'])} | {p['mean']:.2f} | "
            f"{_pm(p['gain_over_random'])} | {_test(p['gain_over_random'])} "
            f"| {p['verdict'] or ''} |")
    lines += ['', '| task | metric | pretraining epochs | RandSAC '
              '- MAE | seeds | gap ± SE | p | verdict |',
              '| --- | --- | --- | --- | --- | --- | --- | --- |']
    for v in curve['randsac_vs_mae']:
        lines.append(f"| {v['task']} | {v['metric']} | {v['epochs']} | "
                     f"{v['init']} | {_count(v)} | "
                     f"{_pm(v)} | {_test(v)} | {v['verdict']} |")
    return '\n'.join(lines)


def plot(curve, path):
    """The gain over random init against the pretraining epochs, one line
    per pretraining (and metric), error bars of one SE; the lines drawn a
    little apart at each length."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    lines = {}
    for p in curve['points']:
        if p['gain_over_random'] is not None:
            lines.setdefault((p['task'], p['metric'], p['init']), []).append(
                (p['epochs'], p['gain_over_random']))
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.axhline(0, color='grey', lw=1, ls='--', label='random init')
    for line, ((task, metric, init), points) in enumerate(
            sorted(lines.items())):
        points.sort(key=lambda p: p[0])
        # Each line a little beside the others, so that bars at the same
        # length do not hide one another (a factor: the axis is a log one).
        shift = 2 ** (0.06 * (line - (len(lines) - 1) / 2))
        ax.errorbar([e * shift for e, _ in points],
                    [g['gap'] for _, g in points],
                    yerr=[g['se'] or 0 for _, g in points], marker='o',
                    capsize=3, label=f'{init} ({task} {metric})')
    ax.set_xscale('log', base=2)
    epochs = sorted({p['epochs'] for p in curve['points']})
    ax.set_xticks(epochs, [str(e) for e in epochs])
    ax.set_xlim(min(epochs) / 1.6, max(epochs) * 1.6)
    ax.set_xlabel('pretraining epochs (log scale)')
    ax.set_ylabel('gain over random init (± 1 SE, paired by seed)')
    ax.set_title('Digit scenes: what pretraining pays downstream')
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def run_curve(epochs, seeds, inits, tasks, work_dir, records,
              report_only=False, log=print):
    """Runs (or reuses) every study of the curve; writes and returns its
    report."""
    results = []
    for n, settings in studies(epochs, seeds, inits, tasks, work_dir,
                               records, report_only):
        what = 'random init' if n is None else f'{n} epochs'
        if report_only and not osp.isdir(settings.records):
            # Nothing recorded: no report of an empty study is written.
            log(f'[curve] {what}: no records yet in {settings.records}')
            continue
        log(f'[curve] {what}: {settings.records}')
        if not report_only:
            os.makedirs(settings.work_dir, exist_ok=True)
        results.append((n, run_study(settings, log)))
    curve = dict(settings=dict(epochs=list(epochs), seeds=list(seeds),
                               inits=list(inits), tasks=list(tasks)),
                 **curve_entries(results),
                 minutes=sum(sum(r['minutes'].values()) for _, r in results))
    base = records.rstrip('/')
    write_json(base + '.json', curve)
    with open(base + '.md', 'w') as f:
        f.write(markdown(curve) + '\n')
    if curve['points']:
        plot(curve, base + '.png')
    elif osp.isfile(base + '.png'):  # of records no longer there
        os.remove(base + '.png')
    return curve


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_argument('--epochs', nargs='+', type=positive_int,
                        help='pretraining lengths; None: '
                        + ' '.join(map(str, DEFAULTS['epochs'])))
    parser.add_argument('--seeds', nargs='+', type=seed_value,
                        help='seeds of the downstream runs; None: '
                        + ' '.join(map(str, DEFAULTS['seeds'])))
    parser.add_argument('--inits', nargs='+', choices=PRETRAINED,
                        help='pretrainings; None: all three')
    parser.add_argument('--tasks', nargs='+', choices=list(TASKS),
                        help='None: segmentation')
    parser.add_path('--work-dir', kind=OUTPUT_FOLDER,
                    help=f"None: {DEFAULTS['work_dir']}")
    parser.add_path('--records', kind=OUTPUT_FOLDER,
                    help='folder of the studies\' records; the report is '
                    f"<records>.json, .md and .png; None: "
                    f"{DEFAULTS['records']}")
    parser.add_argument('--report-only', action='store_true',
                        help='train nothing: the report of the records so '
                        'far')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    values = dict(DEFAULTS, report_only=args.report_only)
    for key in DEFAULTS:
        value = getattr(args, key)
        if value is not None:
            values[key] = tuple(value) if isinstance(value, list) else value
    return values


def main(argv=None):
    values = parse_args(argv)
    use_device('cpu')
    import randsac_mm.downstream  # noqa: F401  (registers)
    curve = run_curve(**values, log=lambda line: print(line, flush=True))
    print('\n' + markdown(curve))
    written = '.json, .md and .png' if curve['points'] else \
        '.json and .md (no point yet: no plot)'
    print(f"wrote {values['records'].rstrip('/')}{written} "
          f"({curve['minutes']:.0f} minutes recorded)")


if __name__ == '__main__':
    from randsac_mm.cli.errors import run_tool
    run_tool(main, prog=PROG)
