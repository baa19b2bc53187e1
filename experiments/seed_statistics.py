"""The studies' one rule for a gap over seeds: its standard error, and a
verdict only beyond two of them."""
import math
import statistics

__all__ = ['paired_gap', 'verdict']


def paired_gap(better, worse):
    """The mean per-seed difference ``better - worse`` over the seeds both
    have, with its standard error (the differences' standard deviation over
    sqrt(n); None with one seed): pairing by seed removes what a seed does
    to both (the same scenes' order, the same heads' initial weights).

    Args:
        better, worse (dict): {seed: value}.

    Returns:
        dict | None: ``gap``, ``se`` and ``seeds``; None when no seed is
        shared.
    """
    seeds = sorted(set(better) & set(worse))
    if not seeds:
        return None
    differences = [better[s] - worse[s] for s in seeds]
    se = statistics.stdev(differences) / math.sqrt(len(seeds)) \
        if len(seeds) > 1 else None
    return dict(gap=statistics.fmean(differences), se=se, seeds=seeds)


def verdict(gap, se, above='holds', below='reversed'):
    """``above`` for a gap beyond 2 SE, ``below`` for one beyond -2 SE,
    else undecided; none without a standard error."""
    if se is None:
        return 'one seed: no standard error'
    if gap > 2 * se:
        return above
    if gap < -2 * se:
        return below
    return 'undecided (within 2 SE)'
