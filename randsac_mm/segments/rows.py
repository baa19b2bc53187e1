"""Label arrays of a batch of layouts, one row per layout (numpy only).

The batch forms of the schemes and orders keep a layout as the label of
each token at each level, int64 [B, N] (tokens in raster order, each row
numbered 0..S_b-1 by first token, as the per-sample functions number
theirs).
"""
import numpy as np

__all__ = ['relabel_rows', 'row_label_counts', 'row_centroids']


def relabel_rows(labels):
    """Renumbers each row's labels 0..S_b-1 in order of first appearance:
    :func:`~.partitions.relabel_by_first_token` for every row.

    Args:
        labels (np.ndarray): int [B, N], non-negative.

    Returns:
        np.ndarray: int64 [B, N].
    """
    batch, tokens = labels.shape
    # A stable sort puts each label's first token first among its tokens.
    by_label = np.argsort(labels, axis=1, kind='stable')
    sorted_labels = np.take_along_axis(labels, by_label, axis=1)
    starts = np.ones(labels.shape, dtype=bool)
    starts[:, 1:] = sorted_labels[:, 1:] != sorted_labels[:, :-1]
    rows = np.broadcast_to(np.arange(batch)[:, None], labels.shape)
    first = np.full((batch, int(labels.max()) + 1), tokens, dtype=np.int64)
    first[rows[starts], sorted_labels[starts]] = by_label[starts]
    # Labels that occur sort by their first token; the others (first ==
    # tokens) come after them and are never looked up.
    new_of_old = np.argsort(np.argsort(first, axis=1, kind='stable'),
                            axis=1, kind='stable')
    return np.take_along_axis(new_of_old, labels, axis=1)


def row_label_counts(labels):
    """int64 [B]: the number of distinct labels in each row of a relabelled
    array (its largest label + 1)."""
    return labels.max(axis=1) + 1


def row_centroids(labels, positions, num_labels):
    """Mean position of each label's tokens, per row.

    Args:
        labels (np.ndarray): int64 [B, N].
        positions (np.ndarray): float [N, 2].
        num_labels (int): L, more than any label.

    Returns:
        tuple: centroids float64 [B, L, 2] (NaN for a label with no token)
        and whether each label has a token, bool [B, L].
    """
    one_hot = labels[:, :, None] == np.arange(num_labels)  # [B, N, L]
    counts = one_hot.sum(axis=1)  # [B, L]
    sums = np.einsum('bnl,nc->blc', one_hot.astype(np.float64), positions)
    with np.errstate(invalid='ignore', divide='ignore'):
        return sums / counts[:, :, None], counts > 0
