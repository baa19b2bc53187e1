"""Coarser partitions of segments: the paper's hierarchical segments.

A hierarchy is a list of ``parents`` arrays: ``parents[0][s]`` is the level-1
group of segment ``s``, ``parents[1][g]`` the level-2 group of level-1 group
``g``, and so on. Each level groups the one below "by the same logic":
squares of squares for square and patch segments, Gaussians over centroids
for blobs.
"""
from math import isqrt

import numpy as np

from .partitions import (
    MAX_BLOB_DRAWS,
    BlobDrawError,
    gaussian_argmax,
    normalized_token_positions,
    relabel_by_first_token,
    sample_gaussians,
    square_segment_ids,
)

__all__ = ['square_group_side', 'square_hierarchy', 'blob_hierarchy',
           'token_groups', 'parents_of_levels']


def square_group_side(rows, cols, count):
    """Side s (in cells) of the s x s squares that cut a rows x cols grid of
    cells into ``count`` squares, or None when no such s exists."""
    if count < 1 or (rows * cols) % count:
        return None
    side = isqrt(rows * cols // count)
    if side * side * count != rows * cols or rows % side or cols % side:
        return None
    return side


def square_hierarchy(rows, cols, counts):
    """Squares of squares over a ``rows x cols`` grid of square segments
    (numbered row-major).

    Args:
        counts (tuple[int]): group count of each level, validated by the
            scheme (:class:`~.schemes.square_cells.SquareCellScheme`).

    Returns:
        list[np.ndarray]: ``parents`` per level, int64.
    """
    parents = []
    for count in counts:
        side = square_group_side(rows, cols, count)
        parents.append(square_segment_ids(rows, cols, side))
        rows, cols = rows // side, cols // side
    return parents


def _centroids(token_labels, num_labels, positions):
    """Mean position of the tokens of each label: [num_labels, 2]."""
    sums = np.zeros((num_labels, 2))
    np.add.at(sums, token_labels, positions)
    return sums / np.bincount(token_labels, minlength=num_labels)[:, None]


def blob_hierarchy(segment_ids, height, width, counts, rng, exact=False):
    """Gaussian blobs over the centroids of the level below, per level.

    By default (the paper's appendix) components that catch no centroid are
    dropped, so a level may have fewer groups than asked for, even one. With
    ``exact`` a level's draw is repeated until every component catches a
    centroid, so each level has exactly its count of groups.

    Returns:
        list[np.ndarray]: ``parents`` per level, int64.

    Raises:
        BlobDrawError: with ``exact``, no such draw in ``MAX_BLOB_DRAWS``.
    """
    positions = normalized_token_positions(height, width)
    parents = []
    token_labels = segment_ids
    num_labels = int(segment_ids.max()) + 1
    for level, count in enumerate(counts, start=1):
        centroids = _centroids(token_labels, num_labels, positions)
        for _ in range(MAX_BLOB_DRAWS if exact else 1):
            means, stds = sample_gaussians(count, rng)
            groups, _ = relabel_by_first_token(
                gaussian_argmax(centroids, means, stds))
            if not exact or groups.max() + 1 == count:
                break
        else:
            raise BlobDrawError(
                f'{MAX_BLOB_DRAWS} draws of {count} Gaussians over the '
                f'{num_labels} groups of level {level - 1} left a component '
                'empty every time: use fewer groups or exact_counts=False')
        parents.append(groups)
        token_labels = groups[token_labels]
        num_labels = int(groups.max()) + 1
    return parents


def token_groups(segment_ids, parents):
    """The group of every token at every level above the segments.

    Returns:
        list[np.ndarray]: one int64 [N] per level.
    """
    groups, labels = [], segment_ids
    for parent in parents:
        labels = parent[labels]
        groups.append(labels)
    return groups


def parents_of_levels(levels):
    """The inverse of :func:`token_groups`: the ``parents`` arrays of a
    hierarchy given as the label of every token at every level.

    Args:
        levels (list[np.ndarray]): int [N] each, the segments first.

    Returns:
        list[np.ndarray]: int64, ``parents[l][s]`` the level ``l + 1``
        label of level ``l``'s label ``s``.
    """
    parents = []
    for child, group in zip(levels[:-1], levels[1:]):
        parent = np.empty(int(child.max()) + 1, dtype=np.int64)
        parent[child] = group
        parents.append(parent)
    return parents
