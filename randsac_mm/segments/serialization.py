"""Orders in which segments are predicted, registered by name.

An order is a function ``fn(segment_ids, parents, grid, rng) -> order``:

- ``segment_ids``: int64 [N], labels 0..S-1 numbered by first token (see
  ``relabel_by_first_token``), N = h * w tokens in raster order;
- ``parents``: the hierarchy (``[]`` when flat), see :mod:`.hierarchy`;
- ``grid``: the token grid ``(h, w)``, for orders that follow geometry;
- ``rng``: np.random.Generator, the layout's randomness;
- returns int64 [S], the segment ids in prediction order. Each partition's
  segments must stay consecutive, as the paper's hierarchy requires.

'random' draws an order at every level of the hierarchy: partitions come in
random order, and within a partition its children come in random order,
recursively, so the segments of one partition are consecutive. 'raster'
orders every level by the raster position of its first token, which for a
flat layout is the row-major order of the segments.

Each order has a batch form (``register_batch_serialization``) for
:func:`~randsac_mm.segments.batch.draw_token_ranks`: from the labels of
every token at every level, [B, N] each, it gives each token's sort key at
each level; segments are sorted by their keys, coarsest level first.
"""
import numpy as np

from .registry import register_batch_serialization, register_serialization

__all__ = ['ancestors', 'random_order', 'random_order_keys', 'raster_order',
           'raster_order_keys']


def ancestors(segment_ids, parents):
    """Per level, the node above each segment: ``[segments, level-1 groups
    of the segments, ...]``, int64 [S] each (level 0 is arange(S))."""
    levels = [np.arange(int(segment_ids.max()) + 1)]
    for parent in parents:
        levels.append(parent[levels[-1]])
    return levels


@register_serialization('random')
def random_order(segment_ids, parents, grid, rng):
    # One random key per node and level; sorting segments by their
    # ancestors' keys, coarsest first, gives a uniformly random order at
    # every level that keeps each partition's segments together.
    keys = [rng.random(int(a.max()) + 1)[a]
            for a in ancestors(segment_ids, parents)]
    # np.lexsort sorts by its last key first: the coarsest level.
    return np.lexsort(keys).astype(np.int64)


@register_serialization('raster')
def raster_order(segment_ids, parents, grid, rng):
    # Labels at every level are numbered by first token, so the label
    # itself is the raster key (coarsest level last, as lexsort wants).
    return np.lexsort(ancestors(segment_ids, parents)).astype(np.int64)


@register_batch_serialization('random')
def random_order_keys(levels, draws):
    # As random_order: one random key per node of each level.
    return [np.take_along_axis(draws(('order', level), labels.shape[1]),
                               labels, axis=1)
            for level, labels in enumerate(levels)]


@register_batch_serialization('raster')
def raster_order_keys(levels, draws):
    # As raster_order: labels are numbered by first token at every level.
    return levels
