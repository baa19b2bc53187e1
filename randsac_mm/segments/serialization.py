"""Orders in which segments are predicted.

'random' draws an order at every level of the hierarchy: partitions come in
random order, and within a partition its children come in random order,
recursively, so the segments of one partition are consecutive. 'raster'
orders every level by the raster position of its first token, which for a
flat layout is the row-major order of the segments.
"""
import numpy as np

__all__ = ['serialize']


def serialize(segment_ids, parents, serialization, rng=None):
    """Serialization order of the segments.

    Args:
        segment_ids (np.ndarray): int64 [N], labels 0..S-1 numbered by first
            token (see ``relabel_by_first_token``).
        parents (list[np.ndarray]): the hierarchy, ``[]`` when flat.
        serialization (str): 'random' or 'raster'.
        rng (np.random.Generator): needed for 'random'.

    Returns:
        np.ndarray: int64 [S], the segment ids in prediction order.
    """
    num_segments = int(segment_ids.max()) + 1
    # ancestors[l][s]: the level-l node above segment s (level 0 = s).
    ancestors = [np.arange(num_segments)]
    for parent in parents:
        ancestors.append(parent[ancestors[-1]])
    if serialization == 'random':
        # One random key per node and level; sorting segments by their
        # ancestors' keys, coarsest first, gives a uniformly random order at
        # every level that keeps each partition's segments together.
        keys = [rng.random(int(a.max()) + 1)[a] for a in ancestors]
    elif serialization == 'raster':
        # Labels at every level are numbered by first token, so the label
        # itself is the raster key.
        keys = ancestors
    else:
        raise ValueError(f"serialization must be 'random' or 'raster', got "
                         f'{serialization!r}')
    # np.lexsort sorts by its last key first: the coarsest level.
    return np.lexsort(keys).astype(np.int64)
