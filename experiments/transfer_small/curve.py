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
p-value, over the planned seeds 0-2 and paired on the seeds both sides
have, and RandSAC against MAE the same way (``experiments.seed_statistics``).
At the longest length two families, each corrected by Holm, are decided:
pretraining pays (each pretraining over random init) and RandSAC against
MAE; the other lengths are exploratory. Seeds 3 and 4, added after the
runs at 160 epochs, are further looks. The picture: the gain against the
pretraining epochs, one line per pretraining.
"""
PROG = 'python -m experiments.transfer_small.curve'
if __name__ == '__main__':  # Ctrl-C in the imports below: one line
    from randsac_mm.cli.run_tool import interrupt_quietly
    interrupt_quietly(PROG)

import os
import os.path as osp
import statistics
from dataclasses import replace

from randsac_mm.cli.args import positive_int, seed_value
from randsac_mm.cli.device import use_device
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import OUTPUT_FOLDER

from ..cells import cell
from ..seed_statistics import (
    StudyDesign,
    apply_families,
    judge,
    p_cell,
    verdict,
)
from .runs import TASKS, TransferSettings
from .steps import by_seed, run_study

PRETRAINED = ('randsac-square', 'randsac-patch-random', 'mae')
RANDSAC = ('randsac-square', 'randsac-patch-random')
# The seeds planned before the runs. Seeds added afterwards, per task, one
# look each: to segmentation, seed 3, then seed 4 (random init, RandSAC
# square and MAE at 160 epochs); none to detection.
PLANNED_SEEDS = (0, 1, 2)
ADDED_SEEDS = dict(segmentation=((3, ), (4, )), detection=())
DEFAULTS = dict(epochs=(10, 40, 160), seeds=PLANNED_SEEDS, inits=PRETRAINED,
                tasks=('segmentation', ), work_dir='work_dirs/transfer_curve',
                records='docs/benchmarks/transfer_curve')


def curve_design(epochs, inits, tasks):
    """The curve's design: the planned seeds and looks, and two families
    at the longest length, each over every task and metric: pretraining
    pays (each pretraining over random init) and RandSAC against MAE. A
    gap's key is ``(task, metric, epochs, init, baseline)``."""
    final = max(epochs)
    metrics = [(t, m) for t in tasks for m in TASKS[t]['metrics']]
    families = {
        'pretraining pays': tuple((t, m, final, i, 'random')
                                  for t, m in metrics for i in inits),
        'RandSAC vs MAE': tuple((t, m, final, i, 'mae')
                                for t, m in metrics for i in RANDSAC
                                if i in inits and 'mae' in inits)}
    looks = next((ADDED_SEEDS[t] for t in tasks if ADDED_SEEDS[t]), ())
    return StudyDesign(seeds=PLANNED_SEEDS, looks=looks,
                       families={k: v for k, v in families.items() if v})


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


def curve_entries(results, design):
    """The curve's figures from each study's table.

    Args:
        results (list[tuple[int | None, dict]]): (epochs or None, the
            study's result: its ``rows``).
        design (StudyDesign): of :func:`curve_design`.

    Returns:
        dict: ``points`` (per task, metric, length and pretraining: the
        mean, the gain over random init with its SE, p, p_holm and
        verdict), ``randsac_vs_mae`` (per length, each RandSAC against
        MAE) and ``random`` (random init's values).
    """
    random_rows = [r for n, result in results if n is None
                   for r in result['rows']]
    points, versus, gaps = [], [], {}
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
                    gain = gaps[task, metric, n, init, 'random'] = judge(
                        mine, random, design)
                    points.append(dict(
                        task=task, metric=metric, epochs=n, init=init,
                        seeds=sorted(mine),
                        mean=statistics.fmean(mine.values()),
                        gain_over_random=gain))
                for init in RANDSAC:
                    gap = judge(values[init], values['mae'], design)
                    if gap:
                        gaps[task, metric, n, init, 'mae'] = gap
                        versus.append(dict(task=task, metric=metric,
                                           epochs=n, init=init, gap=gap))
    apply_families(gaps, design)
    for p in points:
        p['verdict'] = _verdicts(p['gain_over_random'], 'above random init',
                                 'below random init')
    for v in versus:
        gap = v.pop('gap')
        v.update(gap, verdict=_verdicts(gap, 'RandSAC above', 'MAE above'))
    random = [dict(task=task, metric=metric,
                   values=by_seed(random_rows, task, metric, 'random'))
              for task, spec in TASKS.items() for metric in spec['metrics']]
    return dict(points=points, randsac_vs_mae=versus,
                random=[r for r in random if r['values']],
                design=design.as_dict())


def _verdicts(gap, above, below):
    """A gap's verdict, and its further look's, when it has one (None
    without a gap)."""
    if gap is None:
        return None
    if gap['further_look']:
        gap['further_look']['verdict'] = verdict(gap['further_look'],
                                                 above, below)
    return verdict(gap, above, below)


def _pm(gap):
    """'+2.29 ± 1.08' (no SE from one seed)."""
    if gap is None:
        return ''
    se = '' if gap['se'] is None else f" ± {gap['se']:.2f}"
    return f"{gap['gap']:+.2f}{se}"


def _seeds(gap, names):
    """The seeds tested, and those a side has outside the test: '3', or
    '3 (random init 3, 4 beside)'.

    Args:
        names (tuple[str]): the better side's name and the worse side's.
    """
    if gap is None:
        return ''
    beside = '; '.join(f"{name} {', '.join(map(str, seeds))}"
                       for name, seeds in zip(names, gap['extra_seeds'])
                       if seeds)
    sizes = gap['sizes']
    count = str(sizes[0]) if sizes[0] == sizes[1] else '/'.join(
        map(str, sizes))
    return count + (f' ({beside} beside)' if beside else '')


def _test(gap):
    """The test's p-value, and which test where it is Welch's."""
    if gap is None:
        return ''
    return p_cell(gap) + (' (Welch)' if gap['test'] == 'welch' else '')


def markdown(curve):
    """The curve's tables: each gain over random init, each RandSAC
    against MAE (over the planned seeds, p_holm at the longest length),
    and the further looks over the seeds added after the runs."""
    design = curve['design']
    families = '; '.join(f"{name} ({f['size']} gaps)"
                         for name, f in design['families'].items())
    added = ', then '.join(', '.join(map(str, look))
                           for look in design['looks'])
    lines = [f"Planned seeds {', '.join(map(str, design['seeds']))}; "
             + (f'added after the runs, one look each: {added}' if added
                else 'none added')
             + f'. Families at {max(curve["settings"]["epochs"])} epochs, '
             f'each corrected by Holm: {families}. A gap is decided where '
             'p_holm < 0.05. The other lengths are exploratory. A gap is '
             'paired on the seeds both sides have. Seeds that only one side '
             'has are shown beside it, outside the test.', '']
    for r in curve['random']:
        values = ', '.join(f'{v:.2f}' for v in r['values'].values())
        lines.append(f"Random init, {r['task']} {r['metric']}: "
                     f"{statistics.fmean(r['values'].values()):.2f} "
                     f"(seeds {', '.join(map(str, r['values']))}: "
                     f'{values})')
    lines += ['', '| task | metric | pretraining epochs | initialisation | '
              'mean (its seeds) | seeds tested | gain over random init ± SE '
              '| p | p_holm | verdict |',
              '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |']
    for p in curve['points']:
        gain = p['gain_over_random']
        lines.append(
            f"| {p['task']} | {p['metric']} | {p['epochs']} | {p['init']} "
            f"| {p['mean']:.2f} ({len(p['seeds'])}) | "
            f"{_seeds(gain, (p['init'], 'random init'))} | {_pm(gain)} | "
            f"{_test(gain)} | "
            f"{cell(gain and gain['p_holm'], '.3f')} | {p['verdict'] or ''} |")
    lines += ['', '| task | metric | pretraining epochs | RandSAC '
              '- MAE | seeds tested | gap ± SE | p | p_holm | verdict |',
              '| --- | --- | --- | --- | --- | --- | --- | --- | --- |']
    for v in curve['randsac_vs_mae']:
        lines.append(f"| {v['task']} | {v['metric']} | {v['epochs']} | "
                     f"{v['init']} | {_seeds(v, (v['init'], 'MAE'))} | "
                     f"{_pm(v)} | {_test(v)} | "
                     f"{cell(v['p_holm'], '.3f')} | {v['verdict']} |")
    looks = [(f"{p['init']} - random init", p['gain_over_random'], p)
             for p in curve['points']] + [
        (f"{v['init']} - MAE", v, v) for v in curve['randsac_vs_mae']]
    rows = [f"| {where['task']} | {where['metric']} | {where['epochs']} | "
            f"{name} | {', '.join(map(str, look['seeds']))} | {_pm(look)} | "
            f"{_test(look)} | {look['looks']} | "
            f"{cell(look['p_looks'], '.3f')} | "
            f"{cell(look.get('p_holm'), '.3f')} | {look['verdict']} |"
            for name, gap, where in looks
            if gap and (look := gap['further_look'])]
    if rows:
        lines += ['', 'Further looks, over the planned and the added seeds: '
                  'p_looks is p times the looks taken (Bonferroni over '
                  'looks), p_holm corrects it within the family. The '
                  "verdicts above are the planned seeds'.", '',
                  '| task | metric | pretraining epochs | gap | seeds | '
                  'gap ± SE | p | looks | p_looks | p_holm | verdict |',
                  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | '
                  '--- | --- |', *rows]
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
    from randsac_mm.checkpoint import write_json
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
                 **curve_entries(results, curve_design(epochs, inits, tasks)),
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
    from randsac_mm.cli.run_tool import run_tool
    run_tool(main, prog=PROG)
