"""Partitions of an ``h x w`` token grid into segments (numpy only).

Every function returns ``segment_ids``: int64 [h * w], the segment of each
token in raster order, numbered 0..S-1 by the raster position of each
segment's first token (see :func:`relabel_by_first_token`), so that the
raster serialization of segments is simply 0, 1, ..., S-1.
"""
import numpy as np

__all__ = ['relabel_by_first_token', 'square_segment_ids',
           'normalized_token_positions', 'sample_gaussians',
           'gaussians_from_uniforms',
           'gaussian_argmax', 'blob_segment_ids', 'shuffle_tokens',
           'BlobDrawError', 'MAX_BLOB_DRAWS']

# Paper appendix, "Blob Segments": means ~ U(-1.75, 1.75), standard
# deviations ~ U(0.5, 1) per axis, over token positions spread on [-2, 2].
BLOB_MEAN_RANGE = (-1.75, 1.75)
BLOB_STD_RANGE = (0.5, 1.0)
POSITION_RANGE = (-2.0, 2.0)


def relabel_by_first_token(labels):
    """Renumbers labels 0..S-1 in order of first appearance.

    Args:
        labels (np.ndarray): int [N], any label values.

    Returns:
        tuple: ``(new_labels, old_of_new)``: int64 [N] and the old label of
        each new one, int64 [S].
    """
    old, first = np.unique(labels, return_index=True)
    old_of_new = old[np.argsort(first, kind='stable')]
    new_of_old = np.empty(old.max() + 1, dtype=np.int64)
    new_of_old[old_of_new] = np.arange(len(old_of_new))
    return new_of_old[labels], old_of_new


def square_segment_ids(height, width, side):
    """Segments that are ``side x side`` blocks, row-major over the blocks.

    Returns:
        np.ndarray: int64 [height * width].
    """
    rows = np.arange(height) // side
    cols = np.arange(width) // side
    return (rows[:, None] * (width // side) + cols[None, :]).reshape(-1)


def normalized_token_positions(height, width):
    """Token centres on [-2, 2]: the top-left token at (-2, -2) and the
    bottom-right one at (2, 2).

    Returns:
        np.ndarray: float64 [height * width, 2], columns (x, y).
    """
    ys, xs = np.meshgrid(np.linspace(*POSITION_RANGE, height),
                         np.linspace(*POSITION_RANGE, width), indexing='ij')
    return np.stack([xs.reshape(-1), ys.reshape(-1)], axis=1)


def sample_gaussians(count, rng):
    """``count`` axis-aligned Gaussians as in the paper's appendix.

    Returns:
        tuple: means float64 [count, 2] and standard deviations [count, 2],
        columns (x, y).
    """
    means = rng.uniform(*BLOB_MEAN_RANGE, size=(count, 2))
    stds = rng.uniform(*BLOB_STD_RANGE, size=(count, 2))
    return means, stds


def gaussians_from_uniforms(numbers):
    """``sample_gaussians``'s Gaussians from numbers in [0, 1), for the
    batch draws.

    Args:
        numbers (np.ndarray): [..., G, 4].

    Returns:
        tuple: means and standard deviations, [..., G, 2] each.
    """
    def spread(u, low, high):
        return low + u * (high - low)  # as Generator.uniform maps them
    return (spread(numbers[..., :2], *BLOB_MEAN_RANGE),
            spread(numbers[..., 2:], *BLOB_STD_RANGE))


def gaussian_argmax(points, means, stds):
    """Index of the Gaussian with the highest density at each point.

    Args:
        points (np.ndarray): [P, 2] or [B, P, 2]; means, stds
            (np.ndarray): [G, 2], or [B, G, 2] for a batch of B draws.

    Returns:
        np.ndarray: int64 [P], or [B, P].
    """
    # log N(p | mu, diag(std^2)) up to a constant shared by all components.
    z = (points[..., :, None, :] - means[..., None, :, :]) \
        / stds[..., None, :, :]
    log_density = -0.5 * (z * z).sum(-1) \
        - np.log(stds).sum(-1)[..., None, :]
    return log_density.argmax(-1)


# Redraws allowed before giving up on a blob layout with >= 2 segments (or,
# with exact counts, with every component non-empty).
MAX_BLOB_DRAWS = 1000


class BlobDrawError(RuntimeError):
    """No accepted blob draw within MAX_BLOB_DRAWS."""


def blob_segment_ids(height, width, num_blobs, rng, exact=False):
    """Blob segments: tokens go to the densest of ``num_blobs`` Gaussians.

    By default (the paper's appendix) components that catch no token are
    dropped, so the result may have fewer than ``num_blobs`` segments, but
    never fewer than 2: a draw in which one Gaussian catches every token (a
    layout with nothing to predict; likely on small grids with few blobs)
    is redrawn. With ``exact`` every draw that leaves a component empty is
    redrawn: the same distribution, conditioned on all ``num_blobs``
    components catching a token.

    Returns:
        np.ndarray: int64 [height * width], labels 0..S-1,
        2 <= S <= num_blobs (S == num_blobs with ``exact``).

    Raises:
        BlobDrawError: no accepted draw in ``MAX_BLOB_DRAWS``.
    """
    points = normalized_token_positions(height, width)
    for _ in range(MAX_BLOB_DRAWS):
        means, stds = sample_gaussians(num_blobs, rng)
        labels = gaussian_argmax(points, means, stds)
        caught = len(np.unique(labels)) if exact else None
        if caught == num_blobs or (not exact and labels.min() != labels.max()):
            return relabel_by_first_token(labels)[0]
    wanted = f'all {num_blobs} non-empty' if exact else 'two or more segments'
    raise BlobDrawError(
        f'{MAX_BLOB_DRAWS} draws of {num_blobs} Gaussians over a {height}x'
        f'{width} grid gave none with {wanted}' +
        (': use fewer blobs or exact_counts=False' if exact else ''))


def shuffle_tokens(segment_ids, rng):
    """Reassigns tokens to segments at random, keeping every segment's size
    (the paper's "Shuffle" ablation: segments lose spatial coherence).

    Returns:
        np.ndarray: int64 [N], a random permutation of ``segment_ids``.
    """
    return segment_ids[rng.permutation(len(segment_ids))]
