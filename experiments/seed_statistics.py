"""The studies' one rule for a gap over seeds (docs/small_scale_study.md,
"The verdict rule").

1. **Pair on the seeds both sides have.** A seed draws what both runs
   share (the data order, the initial weights, the probes' seeds), so the
   per-seed differences cancel it: their mean, standard error sd / sqrt(n),
   n - 1 degrees of freedom. Seeds one side has and the other lacks are
   shown beside the gap, not mixed in. Welch's test only where no seed is
   shared.
2. **No verdict without spread, nor from fewer than three seeds a side.**
   Equal per-seed differences (metrics are recorded to 0.01 or 0.1) give a
   standard error of 0: no p, "undecided (no spread)". Two seeds give a
   standard error from one degree of freedom.
3. **A study declares its seeds and its families before its runs**
   (:class:`StudyDesign`). A verdict uses the planned seeds. Each family's
   gaps are corrected together by Holm's step-down method, and a gap is
   decided only where its ``p_holm`` < :data:`ALPHA`. A gap outside every
   family (another length, another readout) is exploratory: printed with
   its p, never decided.
4. **Seeds added after the runs are a further look**, not a new verdict:
   the test over the planned and added seeds, its p multiplied by the
   number of looks taken (Bonferroni over looks), then corrected within
   the family as the planned p would be.

Why a t-test and not "beyond two standard errors": with n seeds the gap
over its standard error follows Student's t with n - 1 degrees of freedom
(paired), whose two-sided 95 % point is 4.30 at three seeds, not 2.
Three seeds, corrected over a family of 18 gaps, decide only a gap whose
t exceeds about 19 (the two-sided 0.05 / 18 point of t with 2 degrees of
freedom): very steady gaps. That is what three seeds can say.
"""
import math
import statistics
from dataclasses import dataclass, field

__all__ = ['ALPHA', 'MIN_SEEDS', 'StudyDesign', 'compare', 'holm',
           'judge', 'apply_families', 'p_cell', 'verdict']

# Two-sided: a family's gap is decided when its p_holm < ALPHA.
ALPHA = 0.05
# Two seeds give a standard error from one degree of freedom; three seeds
# a side are the fewest a verdict is drawn from.
MIN_SEEDS = 3
# A standard error at most this fraction of the gap (or of 1) is rounding,
# not spread.
NO_SPREAD = 1e-9


@dataclass(frozen=True)
class StudyDesign:
    """What a study fixes before its runs.

    Args:
        seeds (tuple[int]): the planned seeds; every verdict uses these.
        families (dict): {family name: tuple of the study's gap keys}: the
            confirmatory comparisons, each family corrected by Holm. A key
            is the study's own (e.g. ``(worse, better, readout)``).
        looks (tuple[tuple[int]]): seeds added after the runs, one tuple
            per further look, in the order they were added (a study
            declares a look when it adds seeds).
        declared (str): when the families were fixed, in words (the
            commit that declared them before the runs, or that they were
            drawn after); '' where the design does not say.
    """
    seeds: tuple
    families: dict = field(default_factory=dict)
    looks: tuple = ()
    declared: str = ''

    def __post_init__(self):
        added = [s for look in self.looks for s in look]
        every = list(self.seeds) + added
        if not self.seeds or len(set(every)) != len(every):
            raise ValueError(
                f'seeds {list(self.seeds)} and looks '
                f'{[list(look) for look in self.looks]}: give at least one '
                'planned seed, and each seed once')
        if any(not look for look in self.looks):
            raise ValueError('looks: each further look adds at least one seed')
        keys = [k for members in self.families.values() for k in members]
        if len(set(keys)) != len(keys):
            raise ValueError('families: a gap belongs to one family at most')

    def family_of(self, key):
        """The name of the family ``key`` belongs to, or None
        (exploratory)."""
        return next((name for name, members in self.families.items()
                     if key in members), None)

    def as_dict(self):
        """The design as a report's JSON holds it."""
        shown = dict(seeds=list(self.seeds),
                     looks=[list(look) for look in self.looks],
                     families={name: dict(size=len(members),
                                          members=[list(k) for k in members])
                               for name, members in self.families.items()})
        if self.declared:
            shown['declared'] = self.declared
        return shown


def compare(better, worse):
    """The gap ``better - worse`` over seeds, t-tested.

    Paired on the seeds both sides have; a side's other seeds are listed in
    ``extra_seeds``, outside the test. Welch's test (the difference of the
    means, standard error sqrt(s_b^2 / n_b + s_w^2 / n_w), the
    Welch-Satterthwaite degrees of freedom) only where no seed is shared.

    Args:
        better, worse (dict): {seed: value}.

    Returns:
        dict | None: ``gap``, ``se`` (None below two values a side), ``df``,
        ``p`` (two-sided; None where ``se`` is None or 0), ``test``
        ('paired' or 'welch'), ``seeds`` (those tested), ``sizes``
        ([n_better, n_worse] tested) and ``extra_seeds`` ([better's,
        worse's] seeds left out of a paired test). None when a side has
        no value.
    """
    if not better or not worse:
        return None
    common = sorted(better.keys() & worse.keys())
    if common:
        differences = [better[s] - worse[s] for s in common]
        gap = statistics.fmean(differences)
        n = len(common)
        se = statistics.stdev(differences) / math.sqrt(n) if n > 1 else None
        df, test, seeds, sizes = n - 1, 'paired', common, [n, n]
    else:
        highs, lows = list(better.values()), list(worse.values())
        gap = statistics.fmean(highs) - statistics.fmean(lows)
        se, df = _welch(highs, lows)
        test, seeds = 'welch', sorted(better.keys() | worse.keys())
        sizes = [len(highs), len(lows)]
    extra = [sorted(set(side) - set(common)) if common else []
             for side in (better, worse)]
    return dict(gap=gap, se=se, df=df, p=_two_sided_p(gap, se, df),
                test=test, seeds=seeds, sizes=sizes, extra_seeds=extra)


def _welch(highs, lows):
    """Welch's standard error and degrees of freedom (None, None below two
    values a side; df None where neither side spreads)."""
    if min(len(highs), len(lows)) < 2:
        return None, None
    parts = [statistics.variance(v) / len(v) for v in (highs, lows)]
    se = math.sqrt(sum(parts))
    if se == 0:
        return se, None
    df = sum(parts) ** 2 / sum(
        part ** 2 / (len(v) - 1) for part, v in zip(parts, (highs, lows)))
    return se, df


def _two_sided_p(gap, se, df):
    """P(|T| >= |gap / se|) for Student's t with ``df`` degrees of freedom;
    None without a standard error or without spread (se 0: a t of
    infinity or of 0 over 0 says nothing). Equal differences of decimals
    (52.6 - 51.2 and 52.8 - 51.4) differ in their last bits: a standard
    error below a billionth of the values is none."""
    if se is None or se <= NO_SPREAD * max(1.0, abs(gap)):
        return None
    from scipy.stats import t
    return float(2 * t.sf(abs(gap / se), df))


def holm(p_values):
    """Holm-Bonferroni adjusted p-values, in the order given.

    The i-th smallest of m p-values is multiplied by m - i + 1 (i from 1),
    each adjusted value at least the one before it, capped at 1. A gap
    without a p (None: too few seeds, no spread, not recorded) still counts
    in m, as a p of 1 would, and gets None.
    """
    m = len(p_values)
    order = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted = [None] * m
    running = 0.0
    for rank, (p, i) in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def judge(better, worse, design):
    """The gap over the design's planned seeds, with a further look where
    both sides hold seeds added after the runs.

    The further look is the latest of the design's looks whose seeds, and
    the planned seeds and those of the looks before it, both sides hold:
    the gap over all those
    seeds, ``looks`` (looks taken, the planned one included) and ``p_looks``
    (p times ``looks``, at most 1). Recorded seeds the test leaves out are
    listed in ``extra_seeds`` either way.

    Args:
        better, worse (dict): {seed: value}, every seed recorded.
        design (StudyDesign): the planned seeds and the looks.

    Returns:
        dict | None: :func:`compare` of the planned seeds, with
        ``further_look`` (a :func:`compare` with ``looks`` and ``p_looks``,
        or None); None when a side has no planned seed.
    """
    planned = set(design.seeds)
    gap = compare(*({s: v for s, v in side.items() if s in planned}
                    for side in (better, worse)))
    if gap is None:
        return None
    gap['extra_seeds'] = [sorted(set(side) - set(gap['seeds']))
                          for side in (better, worse)]
    gap['further_look'] = None
    seeds = set(design.seeds)
    for taken, look in enumerate(design.looks, start=2):
        seeds |= set(look)
        if not (seeds <= better.keys() and seeds <= worse.keys()):
            break
        later = compare({s: better[s] for s in seeds},
                        {s: worse[s] for s in seeds})
        later.update(looks=taken, p_looks=None if later['p'] is None
                     else min(1.0, later['p'] * taken))
        gap['further_look'] = later
    return gap


def apply_families(gaps, design):
    """Gives every gap its family and Holm-adjusted p.

    Each gap gets ``family`` (its family's name, or None: exploratory) and
    ``p_holm`` (None outside a family, or without a p); a further look of
    a family's gap gets ``p_holm`` too: Holm over the family with its
    ``p_looks`` in the gap's place. A declared gap with no entry (not
    recorded) counts in its family's size.

    Args:
        gaps (dict): {key: :func:`judge`'s dict, or None}.
        design (StudyDesign): whose families.
    """
    for gap in gaps.values():
        if gap is not None:
            gap.update(family=None, p_holm=None)
    for name, members in design.families.items():
        ps = [_p(gaps.get(key)) for key in members]
        for key, adjusted in zip(members, holm(ps)):
            gap = gaps.get(key)
            if gap is None:
                continue
            gap.update(family=name, p_holm=adjusted)
        for i, key in enumerate(members):
            look = (gaps.get(key) or {}).get('further_look')
            if look is not None:
                look['p_holm'] = holm(
                    ps[:i] + [look['p_looks']] + ps[i + 1:])[i]


def _p(gap):
    return None if gap is None else gap['p']


def verdict(gap, above='holds', below='reversed'):
    """``above`` for a positive gap of a family with ``p_holm`` <
    :data:`ALPHA`, ``below`` for a negative one; else why not: too few
    seeds, no spread, exploratory (outside every family), or undecided.

    Args:
        gap (dict): as :func:`apply_families` leaves it (a further look
            too).
    """
    seeds = min(gap['sizes'])
    if seeds < MIN_SEEDS:
        return f'{seeds} seed{"s" if seeds > 1 else ""}: ' \
               f'no verdict below {MIN_SEEDS}'
    if gap['p'] is None:  # two values a side or more: no spread
        return 'undecided (no spread)'
    if gap.get('p_holm') is None:
        return 'exploratory'
    if gap['p_holm'] < ALPHA:
        return above if gap['gap'] > 0 else below
    return f'undecided (p_holm ≥ {ALPHA:g})'


def p_cell(gap, key='p'):
    """A gap's p-value (``key``: 'p', 'p_holm' or 'p_looks') as the
    reports print it beside the gap: 'p 0.172', 'p_holm < 0.001', or ''
    without one."""
    if gap is None or gap.get(key) is None:
        return ''
    return f'{key} < 0.001' if gap[key] < 0.001 else f'{key} {gap[key]:.3f}'
