"""Layouts for a whole batch (``draw_token_ranks``): each sample's layout
depends on its key alone, is a valid layout, and follows the distribution
that ``make_layout`` draws one sample at a time, for the paper's CIFAR
rows and for a scheme and an order that have no batch form."""
from dataclasses import dataclass

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from randsac_mm.datasets.batch.keyed_random import keyed_draws, sample_keys
from randsac_mm.segments import (
    SEGMENT_SCHEMES,
    SERIALIZATIONS,
    SegmentScheme,
    SegmentSpec,
    make_layout,
    register_scheme,
    register_serialization,
)
from randsac_mm.segments.batch import draw_token_ranks

GRID = (8, 8)  # 32 px at P=4, the CIFAR rows' grid
SETTINGS = {
    'patch-raster': dict(segment='patch', serialization='raster'),
    'patch-random': dict(segment='patch'),
    'patch-16-4': dict(segment='patch', hierarchy=(16, 4)),
    'square-m2': dict(segment='square', square_size=2),
    'square-16to4': dict(segment='square', square_size=2, hierarchy=(4, )),
    'square-shuffled': dict(segment='square', square_size=2,
                            coherent=False),
    'blob-k7': dict(segment='blob', num_segments=7),
    'blob-k7-shuffled': dict(segment='blob', num_segments=7,
                             coherent=False),
    'blob-11to5': dict(segment='blob', num_segments=11, hierarchy=(5, )),
    'blob-11to5-raster': dict(segment='blob', num_segments=11,
                              hierarchy=(5, ), serialization='raster'),
    'blob-k4-exact': dict(segment='blob', num_segments=4,
                          hierarchy=(2, ), exact_counts=True),
}


def batch_ranks(spec, indices, epoch=0):
    return draw_token_ranks(
        spec, keyed_draws(sample_keys(0, epoch, indices), 5), len(indices))


def per_sample_ranks(spec, count, seed=0):
    rng = np.random.default_rng(seed)
    return np.stack([make_layout(spec, rng).token_rank
                     for _ in range(count)])


@pytest.mark.parametrize('name', SETTINGS)
def test_a_sample_draws_its_layout_whatever_the_batch(name):
    spec = SegmentSpec(GRID, **SETTINGS[name])
    whole = batch_ranks(spec, np.arange(40))
    some = batch_ranks(spec, np.arange(15, 5, -1))
    np.testing.assert_array_equal(some, whole[15:5:-1])
    assert whole.dtype == np.int64 and whole.shape == (40, 64)
    if spec.serialization == 'random':  # a new epoch, new layouts
        assert not np.array_equal(batch_ranks(spec, np.arange(40), 1),
                                  whole)


def _statistics(ranks):
    """Per layout: its segment count, the ranks of two tokens, the size of
    token 0's segment, and how far apart in the order the segments of two
    nearby tokens are (which a hierarchy shortens)."""
    return {
        'segments': ranks.max(1) + 1,
        'rank of token 0': ranks[:, 0],
        'rank of token 27': ranks[:, 27],
        "token 0's segment size": (ranks == ranks[:, :1]).sum(1),
        'steps between tokens 18 and 36': abs(ranks[:, 18] - ranks[:, 36])}


def _same_distribution(a, b):
    values = np.union1d(a, b)
    table = np.array([[np.sum(x == v) for v in values] for x in (a, b)])
    table = table[:, table.sum(0) >= 10]  # chi-square needs counts
    return table.shape[1] < 2 or chi2_contingency(table).pvalue > 0.001


@pytest.mark.parametrize('name', SETTINGS)
def test_layouts_are_valid_and_drawn_as_make_layout_draws(name):
    spec = SegmentSpec(GRID, **SETTINGS[name])
    ours = batch_ranks(spec, np.arange(3000))
    for row in ours:  # steps 0..S-1, each a non-empty segment
        steps = np.unique(row)
        assert np.array_equal(steps, np.arange(len(steps)))
    if spec.segment != 'blob':
        assert (ours.max(1) + 1 == spec.nominal_segments).all()
    theirs = per_sample_ranks(spec, 3000)
    for statistic, values in _statistics(ours).items():
        assert _same_distribution(values, _statistics(theirs)[statistic]), \
            statistic


def test_square_groups_stay_consecutive():
    # 16 -> 4: each 4x4-token quarter's four squares come one after the
    # other, in a random order of quarters.
    ranks = batch_ranks(SegmentSpec(GRID, **SETTINGS['square-16to4']),
                        np.arange(200)).reshape(-1, 2, 4, 2, 4)
    quarters = ranks.transpose(0, 1, 3, 2, 4).reshape(200, 4, 16)
    low = quarters.min(2)
    assert (np.sort(low, 1) == [0, 4, 8, 12]).all()
    for row, starts in zip(quarters, low):
        for quarter, start in zip(row, starts):
            assert set(quarter) == set(range(start, start + 4))
    assert len({tuple(s) for s in low}) > 10  # orders of quarters vary


def test_the_distribution_check_tells_orders_apart():
    # The statistics above separate what they must: raster from random.
    raster = batch_ranks(SegmentSpec(GRID, segment='patch',
                                     serialization='raster'), np.arange(500))
    random = per_sample_ranks(SegmentSpec(GRID, segment='patch'), 500)
    assert not _same_distribution(_statistics(raster)['rank of token 27'],
                                  _statistics(random)['rank of token 27'])


@dataclass(frozen=True)
class TwoBands(SegmentScheme):
    """Two horizontal bands split at a random row: a scheme with no batch
    form, drawn per sample by ``SegmentScheme.draw_batch``."""

    @property
    def nominal_segments(self):
        return 2

    def draw(self, rng):
        rows, cols = self.grid
        split = rng.integers(1, rows)
        return np.repeat((np.arange(rows) >= split).astype(np.int64),
                         cols), []


def reverse_raster(segment_ids, parents, grid, rng):
    """An order with no batch form: the segments last to first."""
    return np.arange(int(segment_ids.max()) + 1)[::-1].copy()


@pytest.fixture
def unbatched():
    register_scheme('two_bands')(TwoBands)
    register_serialization('reverse_raster')(reverse_raster)
    yield
    SEGMENT_SCHEMES.unregister('two_bands')
    SERIALIZATIONS.unregister('reverse_raster')


def test_a_scheme_and_an_order_without_batch_forms_run_per_sample(
        unbatched):
    spec = SegmentSpec(GRID, segment='two_bands')
    ours = batch_ranks(spec, np.arange(2000))
    np.testing.assert_array_equal(batch_ranks(spec, np.arange(9, 3, -1)),
                                  ours[9:3:-1])
    assert _same_distribution(_statistics(ours)["token 0's segment size"],
                              _statistics(per_sample_ranks(spec, 2000))[
                                  "token 0's segment size"])
    spec = SegmentSpec(GRID, segment='square', square_size=2,
                       serialization='reverse_raster')
    np.testing.assert_array_equal(batch_ranks(spec, np.arange(3)),
                                  per_sample_ranks(spec, 3))
