"""Every invalid argument fails at construction with a clear message."""
import re

import pytest

from randsac_mm.segments import SegmentSpec, token_grid


@pytest.mark.parametrize('kwargs, message', [
    # M does not divide the grid.
    (dict(grid=(8, 8), segment='square', square_size=3),
     'square_size (M) must divide both sides of the 8x8 token grid and '
     'leave at least 2 squares: allowed [1, 2, 4], got 3'),
    (dict(grid=(14, 14), segment='square', square_size=4),
     'allowed [1, 2, 7], got 4'),
    # M leaves a single square: nothing to predict.
    (dict(grid=(8, 8), segment='square', square_size=8), 'got 8'),
    # K out of range.
    (dict(grid=(8, 8), segment='blob', num_segments=65),
     'num_segments (K) must be an int in [2, 64] (the token count of the '
     '8x8 grid), got 65'),
    (dict(grid=(8, 8), segment='blob', num_segments=1),
     'num_segments (K) must be an int in [2, 64]'),
    # Hierarchies that do not coarsen.
    (dict(grid=(8, 8), segment='square', hierarchy=(16, )),
     'hierarchy (16,) does not coarsen: level 1 has 16 groups, allowed 2..15'),
    (dict(grid=(8, 8), segment='blob', num_segments=11, hierarchy=(5, 7)),
     'hierarchy (5, 7) does not coarsen: level 2 has 7 groups, allowed 2..4'),
    (dict(grid=(8, 8), segment='blob', num_segments=11, hierarchy=(1, )),
     'level 1 has 1 groups, allowed 2..10'),
    (dict(grid=(8, 8), segment='square', hierarchy=(8, )),
     'level 1 cannot group the 4x4 grid of squares into 8 squares of '
     'squares; allowed counts: [4]'),
    (dict(grid=(4, 4), segment='patch', hierarchy=(4, 2)),
     'level 2 cannot group the 2x2 grid of level-1 partitions into 2 '
     'squares of squares; allowed counts: none'),
    (dict(grid=(8, 8), hierarchy=4), 'hierarchy must be a tuple of ints'),
    # Unknown names.
    (dict(grid=(8, 8), segment='circle'),
     "segment must be one of ('patch', 'square', 'blob'), got 'circle'"),
    (dict(grid=(8, 8), serialization='spiral'),
     "serialization must be one of ('random', 'raster'), got 'spiral'"),
    (dict(grid=(8, 8), coherent='no'), "coherent must be True or False"),
    (dict(grid=(8, 8), segment='blob', exact_counts=1),
     "exact_counts must be True or False"),
    # Options of another scheme: refused, naming the scheme's own.
    (dict(grid=(8, 8), segment='square', num_segments=9),
     "segment='square' has no option num_segments; its options: "
     'square_size, hierarchy'),
    (dict(grid=(8, 8), num_segments=9),  # 'square' is the default
     "segment='square' has no option num_segments"),
    (dict(grid=(8, 8), segment='blob', square_size=3),
     "segment='blob' has no option square_size; its options: "
     'num_segments, hierarchy, exact_counts'),
    (dict(grid=(8, 8), segment='patch', square_size=2),
     "segment='patch' has no option square_size; its options: hierarchy"),
    (dict(grid=(8, 8), segment='patch', exact_counts=True, square_size=2),
     "segment='patch' has no options exact_counts, square_size"),
    (dict(grid=(1, 1)), 'grid must have at least 2 tokens'),
])
def test_invalid_spec(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        SegmentSpec(**kwargs)


def test_valid_paper_settings():
    # CIFAR 32 px, P=4: 8x8 tokens; square M=2 is 16 -> 4, blob 11 -> 5.
    assert SegmentSpec((8, 8), 'square', square_size=2,
                       hierarchy=(4, )).nominal_segments == 16
    assert SegmentSpec((8, 8), 'blob', num_segments=11,
                       hierarchy=(5, )).nominal_segments == 11
    # ImageNet-1K 192 px, P=16: 12x12 tokens; square M=3 is 16 -> 4.
    assert SegmentSpec((12, 12), 'square', square_size=3,
                       hierarchy=(4, )).nominal_segments == 16


@pytest.mark.parametrize('input_size, patch_size, message', [
    (30, 4, 'input_size 30x30 must be divisible by patch_size 4'),
    ((32, 30), 4, 'input_size 32x30 must be divisible by patch_size 4'),
    (32, 0, 'patch_size must be a positive int'),
    ('32', 4, 'input_size must be an int or a pair of ints'),
])
def test_token_grid_errors(input_size, patch_size, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        token_grid(input_size, patch_size)


def test_token_grid():
    assert token_grid(224, 16) == (14, 14)
    assert token_grid((192, 160), 16) == (12, 10)


def test_a_spec_is_a_value_that_rebuilds_from_its_arguments():
    import copy
    import pickle
    spec = SegmentSpec((8, 8), 'square', square_size=2, hierarchy=[4])
    assert spec.hierarchy == (4, ) and spec.square_size == 2
    assert spec.options == dict(square_size=2, hierarchy=(4, ))
    assert SegmentSpec(spec.grid, **spec.arguments) == spec
    assert len({spec, SegmentSpec((8, 8), hierarchy=(4, ))}) == 1
    assert pickle.loads(pickle.dumps(spec)) == copy.deepcopy(spec) == spec
    assert repr(spec) == ("SegmentSpec(grid=(8, 8), segment='square', "
                          'square_size=2, hierarchy=(4,), '
                          "serialization='random', coherent=True)")
    with pytest.raises(AttributeError, match="has options "
                       r"\('square_size', 'hierarchy'\)"):
        spec.num_segments
