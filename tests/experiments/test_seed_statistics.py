"""experiments.seed_statistics: the studies' one rule for a gap over
seeds, a t-test at 95 % with the seeds' own degrees of freedom, checked
against scipy's own tests."""
import pytest
from scipy import stats

from experiments.seed_statistics import MIN_SEEDS, compare, p_cell, verdict


def seeds(*values):
    return dict(enumerate(values))


def test_the_same_seeds_are_paired_as_scipys_related_t_test():
    better, worse = seeds(80.6, 81.2, 80.0, 80.9), seeds(80.0, 80.5, 79.5,
                                                         80.1)
    gap = compare(better, worse)
    expected = stats.ttest_rel(list(better.values()), list(worse.values()))
    assert gap['test'] == 'paired' and gap['df'] == 3
    assert gap['gap'] / gap['se'] == pytest.approx(expected.statistic)
    assert gap['p'] == pytest.approx(expected.pvalue)
    assert gap['seeds'] == [0, 1, 2, 3] and gap['sizes'] == [4, 4]


def test_other_seeds_are_welchs_test_as_scipys():
    better = seeds(81.5, 81.0, 82.0, 81.7)
    worse = {0: 80.1, 1: 80.9, 5: 79.6}
    gap = compare(better, worse)
    expected = stats.ttest_ind(list(better.values()), list(worse.values()),
                               equal_var=False)
    assert gap['test'] == 'welch' and gap['sizes'] == [4, 3]
    assert gap['seeds'] == [0, 1, 2, 3, 5]
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
    assert verdict(paired(4.2)) == 'undecided (p ≥ 0.05)'  # old rule: holds
    assert verdict(paired(2.1)) == 'undecided (p ≥ 0.05)'
    assert verdict(paired(4.4)) == 'holds'
    assert paired(4.303)['p'] == pytest.approx(0.05, abs=1e-4)
    below = compare(seeds(0.0, 0.0, 0.0), seeds(1.0, 1.1, 0.9))
    assert verdict(below, 'RandSAC above', 'MAE above') == 'MAE above'


def test_no_verdict_below_three_seeds_a_side_even_with_no_spread():
    two = compare(seeds(1.5, 1.5), seeds(1.0, 1.0))
    assert (two['se'], two['p']) == (0.0, 0.0)
    assert verdict(two) == '2 seeds: no verdict below 3'
    one = compare(seeds(1.0), seeds(0.0, 0.1, 0.2))
    assert (one['se'], one['p'], verdict(one)) == (
        None, None, '1 seed: no verdict below 3')
    welch = compare(seeds(1.0, 1.2, 1.1), {0: 0.0, 1: 0.1})
    assert verdict(welch) == f'2 seeds: no verdict below {MIN_SEEDS}'


def test_a_gap_with_no_spread_is_certain_unless_it_is_none():
    level = compare(seeds(1.0, 1.0, 1.0), seeds(1.0, 1.0, 1.0))
    assert (level['p'], verdict(level)) == (1.0, 'undecided (p ≥ 0.05)')
    constant = compare(seeds(1.5, 2.0, 2.5), seeds(1.0, 1.5, 2.0))
    assert (constant['se'], constant['p']) == (0.0, 0.0)
    assert verdict(constant) == 'holds'
    assert compare({}, seeds(1.0)) is None


def test_p_is_printed_to_three_places_or_as_below_one_in_a_thousand():
    assert p_cell(dict(p=0.17234)) == 'p 0.172'
    assert p_cell(dict(p=0.0004)) == 'p < 0.001'
    assert p_cell(dict(p=None)) == p_cell(None) == ''
