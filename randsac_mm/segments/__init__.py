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

Segment schemes (``schemes/``, one per module) and serialization orders
(``serialization.py``) are registered by name; a new one is a class or a
function registered with :func:`register_scheme` or
:func:`register_serialization` (docs/architecture.md, "Adding a segment
scheme").
"""
# Importing schemes and serialization registers the built-in names.
from . import schemes, serialization  # noqa: F401
from .grid import token_grid
from .layout import SegmentLayout, make_layout, token_rank_from_order
from .registry import (
    SEGMENT_SCHEMES,
    SERIALIZATIONS,
    register_scheme,
    register_serialization,
)
from .schemes import SegmentScheme
from .spec import SegmentSpec

__all__ = ['SEGMENT_SCHEMES', 'SERIALIZATIONS', 'SegmentLayout',
           'SegmentScheme', 'SegmentSpec', 'make_layout', 'register_scheme',
           'register_serialization', 'token_grid', 'token_rank_from_order']
