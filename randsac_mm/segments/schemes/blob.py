"""'blob': tokens go to the densest of K random Gaussians."""
from dataclasses import dataclass

import numpy as np

from ..hierarchy import blob_hierarchy
from ..partitions import (
    MAX_BLOB_DRAWS,
    BlobDrawError,
    blob_segment_ids,
    gaussian_argmax,
    gaussians_from_uniforms,
    normalized_token_positions,
)
from ..registry import register_scheme
from ..rows import relabel_rows, row_centroids, row_label_counts
from .base import SegmentScheme, check_coarsening

__all__ = ['BlobScheme']


@register_scheme('blob')
@dataclass(frozen=True)
class BlobScheme(SegmentScheme):
    """K Gaussian blobs (the paper's appendix); a hierarchy level draws
    Gaussians over the centroids of the level below.

    Args:
        grid (tuple[int, int]): token grid ``(h, w)``.
        num_segments (int): K, 2 <= K <= h * w.
        hierarchy (tuple[int, ...]): group counts of coarser levels, each
            smaller than the one before; ``()`` is flat, ``(5,)`` the
            paper's 11 -> 5.
        exact_counts (bool): redraw until all K components catch a token
            and every hierarchy level has exactly its count of groups (the
            paper's draw conditioned on that). The default, False, is the
            paper's appendix: empty components are dropped, so a layout may
            have fewer segments and groups (docs/experiments.md, "Blob
            counts").
    """
    num_segments: int = 16
    hierarchy: tuple = ()
    exact_counts: bool = False

    @property
    def nominal_segments(self):
        return self.num_segments

    def check(self):
        if not isinstance(self.exact_counts, bool):
            raise ValueError(f'exact_counts must be True or False, got '
                             f'{self.exact_counts!r}')
        k, num_tokens = self.num_segments, self.grid[0] * self.grid[1]
        if not isinstance(k, int) or isinstance(k, bool) or \
                not 2 <= k <= num_tokens:
            raise ValueError(
                f'num_segments (K) must be an int in [2, {num_tokens}] '
                f'(the token count of the {self.grid[0]}x{self.grid[1]} '
                f'grid), got {k!r}')
        object.__setattr__(self, 'hierarchy',
                           check_coarsening(self.hierarchy, k))

    def check_draws(self):
        # Exact counts redraw up to MAX_BLOB_DRAWS times per layout: fail
        # when the pipeline is built, not mid-run, if they are (close to)
        # impossible for this grid.
        if self.exact_counts:
            try:
                self.draw(np.random.default_rng(0))
            except BlobDrawError as e:
                raise ValueError(f'exact_counts=True: {e}') from e

    def draw(self, rng):
        height, width = self.grid
        segment_ids = blob_segment_ids(height, width, self.num_segments, rng,
                                       exact=self.exact_counts)
        return segment_ids, blob_hierarchy(segment_ids, height, width,
                                           self.hierarchy, rng,
                                           exact=self.exact_counts)

    def draw_batch(self, draws, batch):
        # draw() for every row at once: each redraw of a segment layout or
        # of a level's Gaussians is drawn for the whole batch (its own
        # name), and each row keeps its first accepted draw.
        height, width = self.grid
        points = normalized_token_positions(height, width)
        k = self.num_segments

        def accepted(labels, wanted):
            counts = row_label_counts(labels)
            return counts == wanted if self.exact_counts else counts >= 2

        segment_ids = _first_accepted(
            lambda attempt: relabel_rows(gaussian_argmax(
                points, *_gaussians(draws, ('blob', attempt), batch, k))),
            lambda labels: accepted(labels, k),
            f'{k} Gaussians over a {height}x{width} grid')
        levels, labels = [], segment_ids
        for level, count in enumerate(self.hierarchy, start=1):
            centroids, _ = row_centroids(labels, points,
                                         int(labels.max()) + 1)

            def groups(attempt, labels=labels, centroids=centroids,
                       level=level, count=count):
                of_node = gaussian_argmax(centroids, *_gaussians(
                    draws, ('level', level, attempt), batch, count))
                return relabel_rows(np.take_along_axis(of_node, labels, 1))

            # Without exact counts a level is drawn once (it may have one
            # group), as blob_hierarchy draws it.
            labels = _first_accepted(
                groups, lambda g, count=count: (
                    row_label_counts(g) == count if self.exact_counts
                    else np.ones(len(g), dtype=bool)),
                f'{count} Gaussians over the groups of level {level - 1}')
            levels.append(labels)
        return segment_ids, levels


def _gaussians(draws, name, batch, count):
    """Means and standard deviations, [B, count, 2] each."""
    return gaussians_from_uniforms(
        draws(name, 4 * count).reshape(batch, count, 4))


def _first_accepted(draw, accept, what):
    """Each row's first draw (``draw(attempt)`` -> [B, N]) that ``accept``
    takes (-> bool [B]), within MAX_BLOB_DRAWS attempts."""
    result, pending = None, None
    for attempt in range(MAX_BLOB_DRAWS):
        drawn = draw(attempt)
        ok = accept(drawn)
        if result is None:
            result, pending = drawn, ~ok
        else:
            result[pending & ok] = drawn[pending & ok]
            pending &= ~ok
        if not pending.any():
            return result
    raise BlobDrawError(f'{MAX_BLOB_DRAWS} draws of {what} left '
                        f'{int(pending.sum())} of {len(pending)} layouts '
                        'without an accepted draw: use fewer blobs or '
                        'exact_counts=False')
