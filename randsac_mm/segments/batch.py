"""Segment layouts for a whole batch at once, as arrays.

:func:`draw_token_ranks` is :func:`~.layout.make_layout`'s ``token_rank``
for B samples: the same scheme, coherence ablation and order, drawn from
the same distributions, by array code where the scheme and the order have
a batch form (every built-in one does) and one sample at a time where
they have not.

Randomness comes from ``draws(name, count)`` (:mod:`.draws`): a sample's
layout depends on its key alone, never on the batch it shares.
"""
import numpy as np

from .draws import sample_generators
from .hierarchy import parents_of_levels
from .registry import BATCH_SERIALIZATIONS, SERIALIZATIONS
from .rows import relabel_rows
from .spec import SegmentSpec

__all__ = ['draw_token_ranks']


def _shuffled(levels, draws):
    """The coherence ablation: every row's tokens permuted, each level
    renumbered by first token (``make_layout`` shuffles the segments and
    keeps each segment's groups)."""
    permutation = np.argsort(draws('shuffle', levels[0].shape[1]), axis=1)
    return [relabel_rows(np.take_along_axis(labels, permutation, axis=1))
            for labels in levels]


def _order_keys(spec, levels, draws):
    """Each token's sort key at each level, float64 [B, N] per level."""
    if spec.serialization in BATCH_SERIALIZATIONS:
        keys = BATCH_SERIALIZATIONS.get(spec.serialization)(levels, draws)
        return [np.asarray(k, dtype=np.float64) for k in keys]
    # An order with no batch form: its own function per sample; a
    # segment's key at level 0 is its position in the order.
    serialize = SERIALIZATIONS.get(spec.serialization)
    ranks = np.empty(levels[0].shape, dtype=np.float64)
    for row, rng in enumerate(sample_generators(draws, 'order')):
        parents = parents_of_levels([labels[row] for labels in levels])
        order = serialize(levels[0][row], parents, spec.grid, rng)
        step = np.empty(len(order))
        step[order] = np.arange(len(order))
        ranks[row] = step[levels[0][row]]
    return [ranks]


def draw_token_ranks(spec, draws, batch):
    """The token ranks of ``batch`` layouts of ``spec``.

    Args:
        spec (SegmentSpec): the layout.
        draws (callable): ``draws(name, count)`` -> float64 [B, count] in
            [0, 1) (see the module's docstring).
        batch (int): B.

    Returns:
        np.ndarray: int64 [B, N], ``token_rank`` of each sample, as
        :func:`~.layout.make_layout` gives it for one.
    """
    if not isinstance(spec, SegmentSpec):
        raise TypeError(f'spec must be a SegmentSpec, got {type(spec)}')
    segment_ids, groups = spec.scheme.draw_batch(draws, batch)
    levels = [segment_ids] + list(groups)
    if not spec.coherent:
        levels = _shuffled(levels, draws)
    keys = _order_keys(spec, levels, draws)
    # Each segment's keys (a segment's tokens share them); a label with no
    # token (a row with fewer segments) sorts after the row's segments.
    segments = int(levels[0].max()) + 1
    rows = np.arange(batch)[:, None]
    segment_keys = []
    for key in keys:
        per_segment = np.full((batch, segments), np.inf)
        per_segment[rows, levels[0]] = key
        segment_keys.append(per_segment)
    # np.lexsort's last key is the primary one: the coarsest level.
    order = np.lexsort(segment_keys, axis=-1)
    step = np.empty_like(order)
    np.put_along_axis(step, order, np.arange(segments)[None], axis=1)
    return np.take_along_axis(step, levels[0], axis=1)

