"""'blob': tokens go to the densest of K random Gaussians."""
from dataclasses import dataclass

import numpy as np

from ..hierarchy import blob_hierarchy
from ..partitions import BlobDrawError, blob_segment_ids
from ..registry import register_scheme
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
