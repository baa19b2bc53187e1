"""Schemes and serialization orders are registered by name."""
import re

import numpy as np
import pytest

from randsac_mm.segments import (
    SEGMENT_SCHEMES,
    SERIALIZATIONS,
    SegmentScheme,
    SegmentSpec,
    make_layout,
    register_scheme,
    register_serialization,
)
from randsac_mm.segments.schemes import BlobScheme, PatchScheme, SquareScheme


def test_builtin_names_and_their_options():
    assert tuple(SEGMENT_SCHEMES) == ('patch', 'square', 'blob')
    assert tuple(SERIALIZATIONS) == ('random', 'raster')
    assert 'raster' in SERIALIZATIONS
    assert PatchScheme.option_names() == ('hierarchy', )
    assert SquareScheme.option_names() == ('square_size', 'hierarchy')
    assert BlobScheme.option_names() == ('num_segments', 'hierarchy',
                                         'exact_counts')
    spec = SegmentSpec((8, 8), 'blob', num_segments=11)
    assert spec.scheme == BlobScheme((8, 8), num_segments=11)


def test_unknown_names_list_the_registered_ones():
    with pytest.raises(ValueError, match=re.escape(
            "segment must be one of ('patch', 'square', 'blob'), got "
            "'hexagon'")):
        SegmentSpec((8, 8), 'hexagon')
    with pytest.raises(ValueError, match=re.escape(
            "serialization must be one of ('random', 'raster')")):
        SegmentSpec((8, 8), serialization='spiral')


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="segment 'square' is already "
                       'registered'):
        register_scheme('square')(SquareScheme)


def test_a_scheme_must_be_its_own_dataclass():
    class Undecorated(SegmentScheme):  # its option would not be a field
        rows: int = 1
    with pytest.raises(TypeError, match=re.escape(
            "put @dataclass(frozen=True) under @register_scheme('x')")):
        register_scheme('x')(Undecorated)
    assert 'x' not in SEGMENT_SCHEMES


@pytest.fixture
def bottom_up():
    """A serialization registered for one test: raster order from the
    bottom row up, which needs the grid. Records what it was given."""
    calls = []

    @register_serialization('bottom_up')
    def order(segment_ids, parents, grid, rng):
        calls.append(grid)
        height, width = grid
        rows_up = segment_ids.reshape(height, width)[::-1].reshape(-1)
        _, first = np.unique(rows_up, return_index=True)
        return rows_up[np.sort(first)]  # segments by first token, rows up
    yield calls
    SERIALIZATIONS.unregister('bottom_up')


def test_a_serialization_receives_the_grid(bottom_up):
    spec = SegmentSpec((4, 6), 'square', square_size=2,
                       serialization='bottom_up')
    layout = make_layout(spec, np.random.default_rng(0))
    assert bottom_up == [(4, 6)]
    # 2 x 3 squares, numbered row-major: the bottom row comes first.
    assert layout.order.tolist() == [3, 4, 5, 0, 1, 2]
