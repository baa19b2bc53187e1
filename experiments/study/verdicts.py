"""The study's figures over seeds: each variant's readouts, and each of
the paper's orderings as a gap with its standard error."""
import math
import statistics

from randsac_mm.analysis.paper import paper_figure

from ..seed_statistics import verdict
from .plan import SMALL_SCALE


def summarize(records, variants, readouts, plan=SMALL_SCALE):
    """Mean and standard deviation over seeds, per variant and readout, of
    the records of one epoch."""
    summary = {}
    for name in variants:
        mine = [r for r in records if r['variant'] == name]
        if not mine:
            continue
        config, row = plan.variants[name]
        entry = dict(seeds=[r['seed'] for r in mine], paper_row=row,
                     config=config, paper_linear=paper_figure(config))
        for readout in readouts:
            values = [r[readout] for r in mine]
            entry[readout] = dict(
                values=values, mean=statistics.fmean(values),
                std=statistics.stdev(values) if len(values) > 1 else None)
        summary[name] = entry
    return summary


def ordering_gaps(summaries, readouts, plan=SMALL_SCALE):
    """Each paper ordering's gap (better - worse mean, percentage points)
    and its standard error, sqrt(s_w^2 / n + s_b^2 / n), at every epoch
    both variants were read out, and a verdict at the longest: 'holds'
    (gap > 2 SE), 'reversed' (gap < -2 SE) or 'undecided'.

    Both means are taken over the seeds the two variants share, so a study
    under way, with more seeds recorded for one than for the other,
    compares like with like; ``seeds`` in each epoch's entry names them.

    Args:
        summaries (dict): {epoch: :func:`summarize` of that epoch}.
        plan (StudyPlan): whose orderings.
    """
    orderings = []
    for worse, better, paper in plan.orderings:
        epochs = [e for e, s in summaries.items()
                  if worse in s and better in s]
        if not epochs:
            continue
        entry = dict(worse=worse, better=better, paper=paper, readouts={})
        for readout in readouts:
            per_epoch = []
            for epoch in epochs:
                low, high = summaries[epoch][worse], summaries[epoch][better]
                seeds = [s for s in low['seeds'] if s in high['seeds']]
                if not seeds:
                    continue
                lows = _values_of_seeds(low, readout, seeds)
                highs = _values_of_seeds(high, readout, seeds)
                gap = statistics.fmean(highs) - statistics.fmean(lows)
                se = None if len(seeds) < 2 else math.sqrt(
                    (statistics.variance(lows) + statistics.variance(highs))
                    / len(seeds))
                per_epoch.append(dict(epoch=epoch, gap=gap, se=se,
                                      seeds=seeds))
            if not per_epoch:
                continue
            entry['readouts'][readout] = dict(
                by_epoch=per_epoch, verdict=verdict(per_epoch[-1]))
        if entry['readouts']:
            orderings.append(entry)
    return orderings


def _values_of_seeds(entry, readout, seeds):
    """A :func:`summarize` entry's values of one readout, for ``seeds``."""
    by_seed = dict(zip(entry['seeds'], entry[readout]['values']))
    return [by_seed[s] for s in seeds]


