"""The studies' one rule for a gap over seeds: a t-test at 95 % with the
seeds' own degrees of freedom, and a verdict only from three seeds or
more a side.

Why not "beyond two standard errors": with n seeds the gap over its
standard error follows Student's t with n - 1 degrees of freedom (paired),
whose two-sided 95 % point is 4.30 at three seeds, not 2: a rule of 2 SE
from three paired seeds calls 18 % of the gaps that are noise decided.
"""
import math
import statistics

__all__ = ['ALPHA', 'MIN_SEEDS', 'compare', 'p_cell', 'verdict']

# Two seeds give a standard error from one degree of freedom: two equal
# differences (metrics are recorded to 0.1) make it zero, and any gap would
# then pass. Three seeds a side are the fewest a verdict is drawn from.
MIN_SEEDS = 3
# Two-sided: a gap is decided when p < ALPHA.
ALPHA = 0.05


def compare(better, worse):
    """The gap ``better - worse`` over seeds, t-tested.

    Paired by seed when both sides have the same seeds (a seed draws what
    both runs share: the data order, the initial weights, the probes'
    seeds), so that what a seed does to both cancels: the mean per-seed
    difference, its standard error sd / sqrt(n), n - 1 degrees of freedom.
    Otherwise (a side has seeds the other lacks) Welch's test over each
    side's own values: the difference of the means, its standard error
    sqrt(s_b^2 / n_b + s_w^2 / n_w), the Welch-Satterthwaite degrees of
    freedom.

    Args:
        better, worse (dict): {seed: value}.

    Returns:
        dict | None: ``gap``, ``se`` (None below two values a side),
        ``df``, ``p`` (two-sided; None where ``se`` is), ``test`` ('paired'
        or 'welch'), ``seeds`` (paired: the seeds; Welch: every seed of
        either side) and ``sizes`` ([n_better, n_worse]). None when a side
        has no value.
    """
    if not better or not worse:
        return None
    sizes = [len(better), len(worse)]
    if set(better) == set(worse):
        seeds = sorted(better)
        differences = [better[s] - worse[s] for s in seeds]
        gap = statistics.fmean(differences)
        n = len(seeds)
        se = statistics.stdev(differences) / math.sqrt(n) if n > 1 else None
        df = n - 1
        test = 'paired'
    else:
        seeds = sorted(set(better) | set(worse))
        highs, lows = list(better.values()), list(worse.values())
        gap = statistics.fmean(highs) - statistics.fmean(lows)
        se, df = _welch(highs, lows)
        test = 'welch'
    return dict(gap=gap, se=se, df=df, p=_two_sided_p(gap, se, df),
                test=test, seeds=seeds, sizes=sizes)


def _welch(highs, lows):
    """Welch's standard error and degrees of freedom (None, None below two
    values a side)."""
    if min(len(highs), len(lows)) < 2:
        return None, None
    parts = [statistics.variance(v) / len(v) for v in (highs, lows)]
    se = math.sqrt(sum(parts))
    if se == 0:  # no spread on either side: any df gives the same p
        return se, len(highs) + len(lows) - 2
    df = sum(parts) ** 2 / sum(
        part ** 2 / (len(v) - 1) for part, v in zip(parts, (highs, lows)))
    return se, df


def _two_sided_p(gap, se, df):
    """P(|T| >= |gap / se|) for Student's t with ``df`` degrees of freedom;
    a gap with no spread at all is certain (0), unless it is none (1)."""
    if se is None:
        return None
    if se == 0:
        return 1.0 if gap == 0 else 0.0
    from scipy.stats import t
    return float(2 * t.sf(abs(gap / se), df))


def verdict(gap, above='holds', below='reversed'):
    """``above`` for a positive gap with p < :data:`ALPHA`, ``below`` for a
    negative one, else undecided; none from fewer than :data:`MIN_SEEDS`
    seeds a side.

    Args:
        gap (dict): as :func:`compare` gives it.
    """
    seeds = min(gap['sizes'])
    if seeds < MIN_SEEDS:
        return f'{seeds} seed{"s" if seeds > 1 else ""}: ' \
               f'no verdict below {MIN_SEEDS}'
    if gap['p'] < ALPHA:
        return above if gap['gap'] > 0 else below
    return f'undecided (p ≥ {ALPHA:g})'


def p_cell(gap):
    """A gap's p-value as the reports print it beside the gap: 'p 0.17',
    'p < 0.001', or '' without one."""
    if gap is None or gap.get('p') is None:
        return ''
    return 'p < 0.001' if gap['p'] < 0.001 else f"p {gap['p']:.3f}"
