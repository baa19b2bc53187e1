"""The studies' one rule for a gap over seeds: its standard error, and a
verdict only beyond two of them, from three seeds or more."""
import math
import statistics

__all__ = ['MIN_SEEDS', 'paired_gap', 'verdict']

# Two seeds give a standard error from one degree of freedom: two equal
# differences (metrics are recorded to 0.1) make it zero, and any gap would
# then pass 2 SE. Three seeds are the fewest a verdict is drawn from.
MIN_SEEDS = 3


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


def verdict(gap, above='holds', below='reversed'):
    """``above`` for a gap beyond 2 SE, ``below`` for one beyond -2 SE,
    else undecided; none from fewer than :data:`MIN_SEEDS` seeds.

    Args:
        gap (dict): ``gap`` (the mean difference), ``se`` (its standard
            error, None with one seed) and ``seeds`` (those it is over), as
            :func:`paired_gap` gives them.
    """
    seeds = len(gap['seeds'])
    if seeds < MIN_SEEDS:
        return f'{seeds} seed{"s" if seeds > 1 else ""}: ' \
               f'no verdict below {MIN_SEEDS}'
    if gap['gap'] > 2 * gap['se']:
        return above
    if gap['gap'] < -2 * gap['se']:
        return below
    return 'undecided (within 2 SE)'
