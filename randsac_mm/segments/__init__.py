"""Segment layouts of RandSAC: partitions, hierarchy and serialization.

Framework-free: this package imports numpy only (no torch, no mmengine), so
the heart of the method is easy to test and reuse.

    >>> import numpy as np
    >>> from randsac_mm.segments import SegmentSpec, make_layout
    >>> spec = SegmentSpec(grid=(8, 8), segment='square', square_size=2,
    ...                    hierarchy=(4,))
    >>> layout = make_layout(spec, np.random.default_rng(0))
    >>> layout.num_segments, layout.token_rank.shape
    (16, (64,))
"""
from .layout import SegmentLayout, make_layout, token_rank_from_order
from .spec import SEGMENT_TYPES, SERIALIZATIONS, SegmentSpec, token_grid

__all__ = ['SEGMENT_TYPES', 'SERIALIZATIONS', 'SegmentLayout', 'SegmentSpec',
           'make_layout', 'token_grid', 'token_rank_from_order']
