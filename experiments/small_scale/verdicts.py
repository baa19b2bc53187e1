"""The study's figures over seeds: each variant's readouts, and each of
the paper's orderings as a gap, t-tested over the seeds."""
import statistics

from randsac_mm.analysis.paper import paper_figure

from ..seed_statistics import compare, verdict
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
    """Each paper ordering's gap (better - worse, percentage points) at
    every epoch both variants were read out, t-tested over the seeds
    (:func:`~experiments.seed_statistics.compare`: paired by seed, Welch
    where a variant lacks seeds the other has), and a verdict at the
    longest: 'holds' (p < 0.05, gap > 0), 'reversed' (p < 0.05, gap < 0)
    or undecided.

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
            per_epoch = [dict(epoch=epoch, **compare(
                _by_seed(summaries[epoch][better], readout),
                _by_seed(summaries[epoch][worse], readout)))
                for epoch in epochs]
            entry['readouts'][readout] = dict(
                by_epoch=per_epoch, verdict=verdict(per_epoch[-1]))
        orderings.append(entry)
    return orderings


def _by_seed(entry, readout):
    """A :func:`summarize` entry's values of one readout: {seed: value}."""
    return dict(zip(entry['seeds'], entry[readout]['values']))
