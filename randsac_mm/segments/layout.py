"""One sampled segment layout: partition, hierarchy and serialization."""
from dataclasses import dataclass

import numpy as np

from .hierarchy import parents_of_levels, token_groups
from .partitions import relabel_by_first_token, shuffle_tokens
from .registry import SERIALIZATIONS
from .spec import SegmentSpec

__all__ = ['SegmentLayout', 'make_layout', 'token_rank_from_order']


@dataclass(frozen=True)
class SegmentLayout:
    """A segment layout of an ``h x w`` token grid (tokens in raster order).

    Attributes:
        segment_ids (np.ndarray): int64 [N], segment of each token, numbered
            0..S-1 by the raster position of the segment's first token.
        order (np.ndarray): int64 [S], segment ids in prediction order.
        token_rank (np.ndarray): int64 [N], the serialization step of each
            token's segment: ``token_rank[n] == where(order == seg[n])``.
        groups (tuple[np.ndarray]): per hierarchy level, int64 [N], the
            partition of each token at that level (numbered like segments).
        grid (tuple[int, int]): ``(h, w)``.
    """
    segment_ids: np.ndarray
    order: np.ndarray
    token_rank: np.ndarray
    groups: tuple
    grid: tuple

    @property
    def num_segments(self):
        return len(self.order)


def token_rank_from_order(segment_ids, order):
    """int64 [N]: the position in ``order`` of each token's segment."""
    step_of_segment = np.empty(len(order), dtype=np.int64)
    step_of_segment[order] = np.arange(len(order))
    return step_of_segment[segment_ids]


def _canonical_hierarchy(segment_ids, parents):
    """Renumbers segments and every group level by first token.

    Returns:
        tuple: ``(segment_ids, parents)`` with the same partitions.
    """
    levels = [segment_ids] + token_groups(segment_ids, parents)
    levels = [relabel_by_first_token(labels)[0] for labels in levels]
    return levels[0], parents_of_levels(levels)


def make_layout(spec, rng):
    """Samples one layout: the scheme draws segments and hierarchy, the
    coherence ablation shuffles tokens, the serialization orders segments.

    Args:
        spec (SegmentSpec): the layout (validated on construction).
        rng (np.random.Generator): all randomness comes from here.

    Returns:
        SegmentLayout
    """
    if not isinstance(spec, SegmentSpec):
        raise TypeError(f'spec must be a SegmentSpec, got {type(spec)}')
    segment_ids, parents = spec.scheme.draw(rng)
    if not spec.coherent:
        segment_ids = shuffle_tokens(segment_ids, rng)
        segment_ids, parents = _canonical_hierarchy(segment_ids, parents)
    serialize = SERIALIZATIONS.get(spec.serialization)
    order = serialize(segment_ids, parents, spec.grid, rng)
    return SegmentLayout(
        segment_ids=segment_ids,
        order=order,
        token_rank=token_rank_from_order(segment_ids, order),
        groups=tuple(token_groups(segment_ids, parents)),
        grid=spec.grid)
