"""What the small-scale study writes: tables, verdicts and charts."""
import json
import os.path as osp

from randsac_mm.evaluation import readout_title

from ..cells import cell
from ..seed_statistics import p_cell

__all__ = ['bar_chart', 'curve_chart', 'markdown', 'write_report']


def _cell(stats):
    return f"{stats['mean']:.2f} ± {cell(stats['std'], '.2f')}"


def _gap(point):
    """'+0.71 ± 0.20, p 0.031' (Welch's test marked: no seed shared)."""
    text = f"{point['gap']:+.2f} ± {cell(point['se'], '.2f')}"
    if point['p'] is not None:
        text += f', {p_cell(point)}'
    return text + (' (Welch)' if point['test'] == 'welch' else '')


def _seeds(seeds):
    return ', '.join(map(str, seeds))


def markdown(result):
    """The study's tables: per read-out epoch, every variant's readouts
    (mean ± standard deviation over seeds) beside the paper's CIFAR10
    linear probe; the design (planned seeds, further looks, families);
    then each paper ordering's gap ± standard error at each epoch, per
    readout, with its p-value, and at the final length its p_holm and
    verdict; the further looks; what went against the paper; last, the
    runs those stand on."""
    settings = result['settings']
    readouts = settings['readouts']
    lines = []
    for epoch, summary in result['summary'].items():
        lines += [f'### After {epoch} epochs', '',
                  '| variant | paper row | paper CIFAR10 LIN | ' +
                  ' | '.join(f'ours {readout_title(r)}' for r in readouts) +
                  ' |',
                  '| --- | --- | ---: | ' + ' | '.join(
                      '---:' for _ in readouts) + ' |']
        for name, s in summary.items():
            lines.append(f"| {name} | {s['paper_row']} | "
                         f"{cell(s['paper_linear'], '.2f')} | " +
                         ' | '.join(_cell(s[r]) for r in readouts) + ' |')
        lines.append('')
    # The seeds recorded, which a study under way (report_only) may not yet
    # have for every variant.
    seeds = sorted({r['seed'] for r in result['records']})
    partial = sorted({name for summary in result['summary'].values()
                      for name, s in summary.items() if s['seeds'] != seeds})
    lines += [f'Mean ± standard deviation over seeds {seeds}' +
              (f' (fewer for {", ".join(partial)})' if partial else '') +
              "; 'random' is the untrained encoder.", '']
    epochs = [int(e) for e in result['summary']]
    last = result['summary'][str(epochs[-1])]
    lines += _design(result['design'], epochs[-1],
                     settings.get('reused_runs', {}))
    for readout in readouts:
        lines += [f'#### Paper orderings, {readout_title(readout)}: gap ± '
                  'standard error (points), two-sided p', '',
                  '| paper ordering | paper LIN gap | ' + ' | '.join(
                      f'{e} ep' for e in epochs) + ' | p_holm | verdict |',
                  '| --- | ---: | ' + ' | '.join('---:' for _ in epochs) +
                  ' | ---: | --- |']
        for o in result['orderings']:
            r = o['readouts'][readout]
            by_epoch = {p['epoch']: p for p in r['by_epoch']}
            final = by_epoch.get(epochs[-1])
            lines.append(
                f"| {o['worse']} < {o['better']}: {o['paper']} | "
                f"{_paper_gap(last, o)} | "
                + ' | '.join(_gap(by_epoch[e]) if e in by_epoch else '-'
                             for e in epochs)
                + f" | {cell(final and final['p_holm'], '.3f')} | "
                f"{r['verdict']} |")
        lines.append('')
    lines += _further_looks(result, readouts, epochs[-1])
    lines += _departures(result, readouts, epochs)
    return '\n'.join(lines + _runs(result, epochs[-1]))


def _design(design, final, reused_runs):
    """What the study fixed before its runs, and how its verdicts are
    drawn from it; which variants' runs another study made
    (``reused_runs``: {variant: its work dir})."""
    families = '; '.join(f"{name} ({f['size']} gaps)"
                         for name, f in design['families'].items())
    looks = '; '.join(f'seeds {_seeds(look)}' for look in design['looks'])
    declared = [design['declared'], ''] if design.get('declared') else []
    reused = {}
    for name, folder in reused_runs.items():
        reused.setdefault(folder, []).append(name)
    declared += [f"The runs of {', '.join(names)} are those recorded in "
                 f'{folder}, with the same settings and seeds.'
                 for folder, names in reused.items()]
    return ['#### Design', '', *declared, *([''] if reused else []),
            f"Planned seeds {_seeds(design['seeds'])}"
            + (f'; added after the runs, one further look each: {looks}'
               if looks else '; none added') + '.',
            f'Families at {final} epochs, each corrected by Holm: '
            f'{families}. A gap is decided where p_holm < 0.05; gaps at '
            'other lengths are exploratory (p only). A t-test paired on the '
            "seeds both variants have (Welch's where they share none); no "
            'verdict from fewer than three seeds a side, nor from '
            "differences without spread. The paper's gap in its CIFAR10 "
            'linear probe beside.', '']


def _further_looks(result, readouts, final):
    """The final length's gaps over the planned and the added seeds: p
    times the looks taken, then Holm within the family."""
    lines = []
    for o in result['orderings']:
        for readout in readouts:
            point = next((p for p in o['readouts'][readout]['by_epoch']
                          if p['epoch'] == final), None)
            look = point and point['further_look']
            if look:
                lines.append(
                    f"| {o['worse']} < {o['better']} | "
                    f"{readout_title(readout)} | {_seeds(look['seeds'])} | "
                    f"{_gap(look)} | {look['looks']} | "
                    f"{cell(look['p_looks'], '.3f')} | "
                    f"{cell(look.get('p_holm'), '.3f')} | "
                    f"{look['verdict']} |")
    if not lines:
        return []
    return ['#### Further looks (seeds added after the runs)', '',
            f'At {final} epochs, over the planned and the added seeds; '
            'p_looks is p times the looks taken (Bonferroni over looks), '
            'p_holm corrects it within the family. The verdicts above are '
            "the planned seeds'.", '',
            '| ordering | readout | seeds | gap ± SE, p | looks | p_looks '
            '| p_holm | verdict |',
            '| --- | --- | --- | ---: | ---: | ---: | ---: | --- |',
            *lines, '']


def _paper_gap(summary, ordering):
    """The paper's linear-probe gap of an ordering: '-' without both
    figures, or when they come from different tables (runs of other
    settings, e.g. MAE's low-data ViT-S row against an architecture row)."""
    entries = [summary.get(ordering[k]) or {} for k in ('worse', 'better')]
    figures = [e.get('paper_linear') for e in entries]
    if not all(isinstance(f, (int, float)) for f in figures):
        return '-'
    low, high = (_linear_tables(e['config']) for e in entries)
    if not low & high:
        return '-'
    return f'{figures[1] - figures[0]:+.2f}'


def _linear_tables(config):
    """The paper tables that give the linear-probe figure of ``config``'s
    run (for a study's variant: of the run it stands for, in every table
    that run is a row of)."""
    from randsac_mm.analysis.paper import (
        LINEAR,
        find_model,
        load_metafile,
        paper_results,
    )
    scaled = find_model(config).get('Scales Down')
    if scaled:
        config = next(m['Config'] for m in load_metafile()['Models']
                      if m['Name'] == scaled['Model'])
    return {r['Paper']['Table'] for r in paper_results(config)
            if LINEAR in r['Metrics']}


def _departures(result, readouts, epochs):
    """What did not come out as the paper says: at the final length, the
    orderings reversed or undecided; at the other lengths, the gaps
    against the paper with p < 0.05 before any correction (exploratory);
    then those measured with fewer seeds than a verdict needs."""
    departed, pending, contrary = [], [], []
    for o in result['orderings']:
        for readout in readouts:
            r = o['readouts'][readout]
            name = (f"{o['worse']} < {o['better']} ({o['paper']}), "
                    f'{readout_title(readout)}')
            final = [p for p in r['by_epoch'] if p['epoch'] == epochs[-1]]
            if final and r['verdict'].startswith(('reversed', 'undecided')):
                departed.append(f"- {name}: {_gap(final[0])}, p_holm "
                                f"{cell(final[0]['p_holm'], '.3f')}, "
                                f"{r['verdict']}")
            elif final and r['verdict'] != 'holds':
                pending.append(f"- {name}: {_gap(final[0])}, {r['verdict']}")
            contrary += [f"- {name}, {p['epoch']} epochs: {_gap(p)}"
                         for p in r['by_epoch'] if p['epoch'] != epochs[-1]
                         and p['p'] is not None and p['p'] < 0.05
                         and p['gap'] < 0]
    lines = ['#### Not as the paper says', '',
             f"Of the {len(result['orderings'])} paper orderings measured "
             f'(both variants recorded), at {epochs[-1]} epochs:', '']
    lines += departed or ['- none: each measured ordering holds '
                          '(p_holm < 0.05), or has too few seeds for a '
                          'verdict (below).']
    if contrary:
        lines += ['', 'At other lengths, against the paper with p < 0.05 '
                  'before correction (exploratory, not decided):', '',
                  *contrary]
    if pending:
        lines += ['', '#### No verdict yet (too few seeds)', ''] + pending
    return lines + ['']


def _runs(result, last):
    """Which runs the report stands on: each variant's seeds, with the
    minutes of pretraining and the loss its records give at ``last``, the
    last read-out epoch (the untrained encoder: readouts only)."""
    if not result['records']:
        return []
    by_variant = {}
    for r in sorted(result['records'], key=lambda r: r['seed']):
        if r['epoch'] in (0, last):
            by_variant.setdefault(r['variant'], []).append(r)
    lines = ['#### Runs recorded', '',
             'Seed by seed: minutes of pretraining (the training clock\'s, '
             'over every start, where a record kept it; else those of the '
             f'start that finished the run) and the loss at epoch {last}.',
             '', '| variant | seeds | pretraining minutes | final loss |',
             '| --- | --- | --- | --- |']
    for name, records in by_variant.items():
        seeds = ', '.join(str(r['seed']) for r in records)
        minutes = losses = '-'
        if records[0]['loss'] is not None:
            minutes = ', '.join(f"{r['pretrain_minutes']:.0f}"
                                for r in records)
            losses = ', '.join(f"{r['loss']:.3f}" for r in records)
        lines.append(f'| {name} | {seeds} | {minutes} | {losses} |')
    return lines + ['', f"Pretraining in all: "
                    f"{result['pretrain_minutes']:.0f} minutes.", '']


def bar_chart(summary, readouts, path, title):
    """Bars (mean, error bar: standard deviation) per variant and readout
    at one epoch."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    import numpy as np

    names = list(summary)
    x = np.arange(len(names))
    width = 0.8 / len(readouts)
    fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(names) + 2), 4))
    for i, readout in enumerate(readouts):
        means = [summary[n][readout]['mean'] for n in names]
        stds = [summary[n][readout]['std'] or 0 for n in names]
        ax.bar(x + (i - (len(readouts) - 1) / 2) * width, means, width,
               yerr=stds, capsize=3, label=readout_title(readout))
    values = [summary[n][r]['mean'] for n in names for r in readouts]
    ax.set_ylim(max(0, min(values) - 5), min(100, max(values) + 3))
    ax.set_xticks(x, names, rotation=35, ha='right')
    ax.set_ylabel('Fashion-MNIST test top-1 (%)')
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(axis='y', alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def curve_chart(result, path):
    """Accuracy against pretraining epochs, one line per variant (error
    bars: standard deviation over seeds), one panel per readout; the
    untrained encoder as a dashed line."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    readouts = result['settings']['readouts']
    summaries = {int(e): s for e, s in result['summary'].items()}
    epochs = sorted(summaries)
    variants = [v for v in result['settings']['variants'] if v != 'random']
    fig, axes = plt.subplots(1, len(readouts),
                             figsize=(5 * len(readouts), 4), squeeze=False)
    for ax, readout in zip(axes[0], readouts):
        for name in variants:
            points = [(e, summaries[e][name][readout]) for e in epochs
                      if name in summaries[e]]
            if not points:  # not recorded yet (a study under way)
                continue
            ax.errorbar([e for e, _ in points], [s['mean'] for _, s in points],
                        yerr=[s['std'] or 0 for _, s in points], capsize=3,
                        marker='o', markersize=3, label=name)
        random = summaries[epochs[-1]].get('random')
        if random:
            ax.axhline(random[readout]['mean'], color='grey', ls='--',
                       label='random (untrained)')
        ax.set_xlabel('pretraining epochs')
        ax.set_ylabel('Fashion-MNIST test top-1 (%)')
        ax.set_title(readout_title(readout))
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle('RandSAC small-scale study: frozen ViT-mini/4 features '
                 'along training (mean ± std over seeds)', fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(result, settings):
    """study.json, study.md, study.png and (several epochs) curve.png."""
    folder = settings.work_dir
    with open(osp.join(folder, 'study.json'), 'w') as f:
        json.dump(result, f, indent=2)
    with open(osp.join(folder, 'study.md'), 'w') as f:
        f.write(markdown(result))
    last = str(settings.eval_epochs[-1])
    bar_chart(result['summary'][last], settings.readouts,
              osp.join(folder, 'study.png'),
              f'RandSAC small-scale study after {last} epochs: frozen '
              'ViT-mini/4 features (mean ± std over seeds)')
    if len(settings.eval_epochs) > 1:
        curve_chart(result, osp.join(folder, 'curve.png'))
