"""with_segments: the keys it takes come from the registered schemes."""
import re

import pytest

from randsac_mm.segments.config import layout_keys, with_segments

BASE = [dict(type='LoadImageFromFile'),
        dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4,
             segment='square', square_size=2, hierarchy=(4, ),
             serialization='raster')]


def test_keys_are_the_specs_and_every_schemes_options():
    assert layout_keys() == ('segment', 'serialization', 'coherent',
                             'hierarchy', 'square_size', 'num_segments',
                             'exact_counts')
    with pytest.raises(ValueError, match=re.escape(
            "with_segments: unknown layout keys ['rows_per_stripe']")):
        with_segments(BASE, rows_per_stripe=2)


def test_values_replace_the_steps_and_another_segment_drops_its_options():
    [_, step] = with_segments(BASE, hierarchy=())
    assert step['square_size'] == 2 and step['hierarchy'] == ()
    [_, step] = with_segments(BASE, segment='blob', num_segments=7)
    assert step == dict(type='RandSACSegmentGenerator', input_size=32,
                        patch_size=4, segment='blob', num_segments=7,
                        serialization='raster')
    assert BASE[1]['square_size'] == 2  # the given pipeline is unchanged


def test_a_batch_data_sets_layout_is_set_the_same_way():
    layout = dict(input_size=32, patch_size=4, segment='square',
                  square_size=2)
    assert with_segments(layout, segment='blob', num_segments=7) == dict(
        input_size=32, patch_size=4, segment='blob', num_segments=7)
    assert with_segments(layout, hierarchy=(4, ))['square_size'] == 2
    assert 'hierarchy' not in layout  # the given layout is unchanged
