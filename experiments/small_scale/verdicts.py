"""The study's figures over seeds: each variant's readouts, and each of
the paper's orderings as a gap, t-tested over the planned seeds and
corrected within its family (``experiments.seed_statistics``)."""
import statistics

from randsac_mm.analysis.paper import paper_figure

from ..seed_statistics import apply_families, judge, verdict
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


def ordering_gaps(summaries, readouts, design, plan=SMALL_SCALE):
    """Each paper ordering's gap (better - worse, percentage points) at
    every epoch both variants were read out, over the design's planned
    seeds (:func:`~experiments.seed_statistics.judge`: paired on the seeds
    both have, a further look where seeds were added), and a verdict at
    the final length, where the design's families hold: 'holds' (p_holm <
    0.05, gap > 0), 'reversed' (p_holm < 0.05, gap < 0) or why not. Gaps
    at the other lengths are exploratory.

    Args:
        summaries (dict): {epoch: :func:`summarize` of that epoch}, the
            last being the study's length.
        design (StudyDesign): planned seeds, looks, families of
            ``(worse, better, readout)`` keys.
        plan (StudyPlan): whose orderings.
    """
    final = list(summaries)[-1]
    orderings, at_final = [], {}
    for worse, better, paper in plan.orderings:
        epochs = [e for e, s in summaries.items()
                  if worse in s and better in s]
        if not epochs:
            continue
        entry = dict(worse=worse, better=better, paper=paper, readouts={})
        for readout in readouts:
            per_epoch = []
            for epoch in epochs:
                gap = judge(_by_seed(summaries[epoch][better], readout),
                            _by_seed(summaries[epoch][worse], readout),
                            design)
                if gap is None:  # no planned seed on a side
                    continue
                gap.update(family=None, p_holm=None)
                per_epoch.append(dict(epoch=epoch, **gap))
                if epoch == final:
                    at_final[worse, better, readout] = per_epoch[-1]
            entry['readouts'][readout] = dict(by_epoch=per_epoch)
        orderings.append(entry)
    apply_families(at_final, design)
    for entry in orderings:
        for readout, r in entry['readouts'].items():
            last = at_final.get((entry['worse'], entry['better'], readout))
            r['verdict'] = verdict(last) if last else \
                f'not recorded at {final} epochs'
            look = last and last['further_look']
            if look:
                look['verdict'] = verdict(look)
    return orderings


def _by_seed(entry, readout):
    """A :func:`summarize` entry's values of one readout: {seed: value}."""
    return dict(zip(entry['seeds'], entry[readout]['values']))
