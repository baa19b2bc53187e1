"""experiments.seed_statistics: the studies' one rule for a gap over
seeds: a t-test with the seeds' own degrees of freedom, paired on the
seeds both sides have, checked against scipy's own tests; no verdict
without spread; Holm within a declared family, checked against a table
worked by hand; seeds added after the runs as a further look."""
import pytest
from scipy import stats

from experiments.seed_statistics import (
    MIN_SEEDS,
    StudyDesign,
    apply_families,
    compare,
    holm,
    judge,
    p_cell,
    verdict,
)


def seeds(*values):
    return dict(enumerate(values))


def decided(gap, family_size=1, **kwargs):
    """``gap`` as the only measured member of a family of
    ``family_size``."""
    members = tuple(range(family_size))
    apply_families({0: gap}, StudyDesign(seeds=(0, ),
                                         families=dict(f=members)))
    return verdict(gap, **kwargs)


def test_the_same_seeds_are_paired_as_scipys_related_t_test():
    better, worse = seeds(80.6, 81.2, 80.0, 80.9), seeds(80.0, 80.5, 79.5,
                                                         80.1)
    gap = compare(better, worse)
    expected = stats.ttest_rel(list(better.values()), list(worse.values()))
    assert gap['test'] == 'paired' and gap['df'] == 3
    assert gap['gap'] / gap['se'] == pytest.approx(expected.statistic)
    assert gap['p'] == pytest.approx(expected.pvalue)
    assert gap['seeds'] == [0, 1, 2, 3] and gap['sizes'] == [4, 4]
    assert gap['extra_seeds'] == [[], []]


def test_seeds_that_partly_overlap_are_paired_on_the_common_ones():
    """Random init's seeds 3 and 4 beside three pretrained seeds: the test
    is the paired one over seeds 0-2; the extras are listed, not mixed in
    (Welch over all five would have dropped the pairing)."""
    better = seeds(34.0, 36.5, 33.0)
    worse = seeds(39.1, 42.8, 42.3, 47.1, 42.7)
    gap = compare(better, worse)
    expected = stats.ttest_rel([34.0, 36.5, 33.0], [39.1, 42.8, 42.3])
    assert (gap['test'], gap['seeds'], gap['sizes']) == (
        'paired', [0, 1, 2], [3, 3])
    assert gap['extra_seeds'] == [[], [3, 4]]
    assert gap['p'] == pytest.approx(expected.pvalue)
    welch = stats.ttest_ind(list(better.values()), list(worse.values()),
                            equal_var=False)
    assert gap['p'] != pytest.approx(welch.pvalue)


def test_welch_only_where_no_seed_is_shared_as_scipys():
    better = seeds(81.5, 81.0, 82.0, 81.7)
    worse = {5: 80.1, 6: 80.9, 7: 79.6}
    gap = compare(better, worse)
    expected = stats.ttest_ind(list(better.values()), list(worse.values()),
                               equal_var=False)
    assert gap['test'] == 'welch' and gap['sizes'] == [4, 3]
    assert gap['seeds'] == [0, 1, 2, 3, 5, 6, 7]
    assert gap['gap'] / gap['se'] == pytest.approx(expected.statistic)
    assert gap['df'] == pytest.approx(expected.df)
    assert gap['p'] == pytest.approx(expected.pvalue)


def test_three_seeds_decide_at_the_t_point_not_at_two_standard_errors():
    # Student's t with 2 degrees of freedom: the two-sided 95 % point is
    # 4.303. Differences d, d + e, d - e have a gap of d and an SE of
    # e / sqrt(3): the gap is t SE for e = d sqrt(3) / t.
    def paired(t):
        e = 3 ** 0.5 / t
        return compare(seeds(1.0, 1.0 + e, 1.0 - e), seeds(0.0, 0.0, 0.0))
    assert decided(paired(4.2)) == 'undecided (p_holm ≥ 0.05)'
    assert decided(paired(2.1)) == 'undecided (p_holm ≥ 0.05)'
    assert decided(paired(4.4)) == 'holds'
    assert paired(4.303)['p'] == pytest.approx(0.05, abs=1e-4)
    below = compare(seeds(0.0, 0.0, 0.0), seeds(1.0, 1.1, 0.9))
    assert decided(below, above='RandSAC above',
                   below='MAE above') == 'MAE above'


def test_a_family_of_eighteen_decides_only_a_very_steady_gap():
    """p_holm of the smallest p in a family of 18 is 18 p: three seeds
    then need t beyond the two-sided 0.05 / 18 point of t with 2 degrees
    of freedom, about 19."""
    point = stats.t.isf(0.05 / 18 / 2, 2)
    assert 18 < point < 20

    def paired(t):
        e = 3 ** 0.5 / t
        return compare(seeds(1.0, 1.0 + e, 1.0 - e), seeds(0.0, 0.0, 0.0))
    assert decided(paired(10.0), family_size=18) == \
        'undecided (p_holm ≥ 0.05)'
    assert decided(paired(point * 1.05), family_size=18) == 'holds'


def test_equal_differences_give_no_verdict():
    """Box AP differences of 1.4, 1.4, 1.4 (metrics recorded to 0.1, whose
    differences differ in their last bits): no spread, no p, no verdict,
    whatever the family."""
    rounded = compare(seeds(52.6, 52.8, 51.7), seeds(51.2, 51.4, 50.3))
    assert 0 < rounded['se'] < 1e-12  # the last bits of the decimals
    assert (rounded['p'], decided(rounded)) == (None, 'undecided (no spread)')
    constant = compare(seeds(1.5, 2.0, 2.5), seeds(1.0, 1.5, 2.0))
    assert (constant['se'], constant['p']) == (0.0, None)
    assert decided(constant) == 'undecided (no spread)'
    level = compare(seeds(1.0, 1.0, 1.0), seeds(1.0, 1.0, 1.0))
    assert (level['p'], decided(level)) == (None, 'undecided (no spread)')
    welch = compare(seeds(1.0, 1.0, 1.0), {5: 0.0, 6: 0.0, 7: 0.0})
    assert (welch['test'], welch['p']) == ('welch', None)
    assert decided(welch) == 'undecided (no spread)'
    assert compare({}, seeds(1.0)) is None


def test_no_verdict_below_three_seeds_a_side():
    two = compare(seeds(1.5, 1.7), seeds(1.0, 1.0))
    assert decided(two) == '2 seeds: no verdict below 3'
    one = compare(seeds(1.0), seeds(0.0, 0.1, 0.2))
    assert (one['se'], one['p'], decided(one)) == (
        None, None, '1 seed: no verdict below 3')
    welch = compare(seeds(1.0, 1.2, 1.1), {5: 0.0, 6: 0.1})
    assert decided(welch) == f'2 seeds: no verdict below {MIN_SEEDS}'


# Holm's adjusted p-values, worked by hand (the i-th smallest of m times
# m - i + 1, never below the one before, at most 1); the same as
# statsmodels' multipletests(method='holm').
HOLM = [
    ([0.01, 0.04, 0.03, 0.005], [0.03, 0.06, 0.06, 0.02]),
    ([0.0022, 0.038, 0.025, 0.04, 0.3, 0.5],
     [0.0132, 0.152, 0.125, 0.152, 0.6, 0.6]),
    ([0.2, 0.9], [0.4, 0.9]),
    ([0.04], [0.04]),
    ([], []),
]


@pytest.mark.parametrize('p_values, adjusted', HOLM)
def test_holm_matches_a_table_worked_by_hand(p_values, adjusted):
    assert holm(p_values) == pytest.approx(adjusted)


def test_a_gap_without_p_still_counts_in_its_family():
    """A declared gap with too few seeds, no spread or no record counts in
    m (as a p of 1 would): the others are not corrected less."""
    assert holm([0.01, None, 0.02]) == pytest.approx([0.03, None, 0.04])
    design = StudyDesign(seeds=(0, 1, 2), families=dict(
        paper=('a', 'b', 'c')))
    gaps = dict(a=compare(seeds(1.0, 1.1, 1.3), seeds(0.0, 0.0, 0.0)))
    apply_families(gaps, design)
    assert gaps['a']['p_holm'] == pytest.approx(3 * gaps['a']['p'])
    assert gaps['a']['family'] == 'paper'


def test_a_gap_outside_every_family_is_exploratory():
    design = StudyDesign(seeds=(0, 1, 2), families=dict(paper=('a', )))
    gaps = dict(a=compare(seeds(1.0, 1.1, 1.3), seeds(0.0, 0.0, 0.0)),
                other=compare(seeds(1.0, 1.1, 1.3), seeds(0.0, 0.0, 0.0)))
    apply_families(gaps, design)
    assert gaps['other']['p'] < 0.05
    assert (gaps['other']['family'], gaps['other']['p_holm']) == (None, None)
    assert verdict(gaps['other']) == 'exploratory'
    assert verdict(gaps['a']) == 'holds'


def test_a_verdict_uses_the_planned_seeds_and_a_further_look_pays_for_looks():
    """Squares over single patches at 30 epochs: three planned seeds, then
    seeds 3 and 4 added in one look. The verdict is the planned seeds'
    (p 0.056); the look over five (p 0.020) is multiplied by the two looks
    taken, then corrected within the family like the planned p."""
    patch = seeds(80.2, 80.0, 80.1, 80.5, 79.9)
    square = seeds(81.0, 80.6, 80.9, 80.9, 80.5)
    design = StudyDesign(seeds=(0, 1, 2), looks=((3, 4), ),
                         families=dict(paper=('squares', 'blobs')))
    gap = judge(square, patch, design)
    planned = stats.ttest_rel([81.0, 80.6, 80.9], [80.2, 80.0, 80.1])
    assert gap['seeds'] == [0, 1, 2]
    assert gap['extra_seeds'] == [[3, 4], [3, 4]]
    assert gap['p'] == pytest.approx(planned.pvalue)
    look = gap['further_look']
    five = stats.ttest_rel(list(square.values()), list(patch.values()))
    assert (look['seeds'], look['looks']) == ([0, 1, 2, 3, 4], 2)
    assert look['p'] == pytest.approx(five.pvalue)
    assert look['p_looks'] == pytest.approx(2 * five.pvalue)
    gaps = dict(squares=gap, blobs=compare(seeds(1.0, 0.0, 2.0),
                                           seeds(0.0, 0.5, 0.5)))
    apply_families(gaps, design)
    assert gap['p_holm'] == pytest.approx(
        holm([gap['p'], gaps['blobs']['p']])[0])
    assert look['p_holm'] == pytest.approx(
        holm([look['p_looks'], gaps['blobs']['p']])[0])


def test_a_further_look_needs_every_seed_of_its_look_on_both_sides():
    """Seed 3, then seed 4: with seed 4 on one side only, the further look
    is the second (seeds 0-3, two looks taken), not the third."""
    design = StudyDesign(seeds=(0, 1, 2), looks=((3, ), (4, )))
    better = seeds(2.0, 2.5, 1.0, 2.2, 3.0)
    worse = seeds(1.0, 1.0, 0.5, 1.1)
    look = judge(better, worse, design)['further_look']
    assert (look['seeds'], look['looks']) == ([0, 1, 2, 3], 2)
    assert judge(seeds(1.0, 2.0, 3.0), seeds(0.0, 0.5, 0.5),
                 design)['further_look'] is None
    # No planned seed on a side: no gap.
    assert judge({3: 1.0}, seeds(0.0, 0.5, 0.5), design) is None


@pytest.mark.parametrize('kwargs, message', [
    (dict(seeds=()), 'give at least one planned seed'),
    (dict(seeds=(0, 1), looks=((1, ), )), 'each seed once'),
    (dict(seeds=(0, ), looks=((), )), 'each further look adds'),
    (dict(seeds=(0, ), families=dict(a=('x', ), b=('x', ))),
     'a gap belongs to one family at most'),
])
def test_a_bad_design_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        StudyDesign(**kwargs)


def test_p_is_printed_to_three_places_or_as_below_one_in_a_thousand():
    assert p_cell(dict(p=0.17234)) == 'p 0.172'
    assert p_cell(dict(p=0.0004)) == 'p < 0.001'
    assert p_cell(dict(p=None)) == p_cell(None) == ''
    assert p_cell(dict(p_holm=0.38), 'p_holm') == 'p_holm 0.380'
