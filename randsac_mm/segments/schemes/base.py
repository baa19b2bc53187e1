"""What every segment scheme is: the grid and the scheme's own options."""
from dataclasses import dataclass, fields

import numpy as np

from ..draws import sample_generators
from ..grid import pair
from ..hierarchy import token_groups

__all__ = ['SegmentScheme', 'check_coarsening']


@dataclass(frozen=True)
class SegmentScheme:
    """One way of cutting an ``h x w`` token grid into segments.

    A scheme is a frozen dataclass: ``grid``, then its options, each a field
    with a default. A subclass validates its options in :meth:`check` (run
    on construction, so a bad config fails when it is built), draws layouts
    in :meth:`draw`, and is made usable as ``segment=<name>`` by
    :func:`~randsac_mm.segments.register_scheme`.

    Args:
        grid (tuple[int, int]): token grid ``(h, w)``, at least 2 tokens.
    """
    grid: tuple

    def __post_init__(self):
        height, width = pair(self.grid, 'grid')
        if height < 1 or width < 1 or height * width < 2:
            raise ValueError(f'grid must have at least 2 tokens, got '
                             f'{height}x{width}')
        # Frozen: normalising a field goes through object.__setattr__.
        object.__setattr__(self, 'grid', (height, width))
        self.check()

    @classmethod
    def option_names(cls):
        """tuple[str]: the scheme's options, its fields after ``grid``."""
        return tuple(f.name for f in fields(cls))[1:]

    @property
    def options(self):
        """dict: each option's value, in field order."""
        return {name: getattr(self, name) for name in self.option_names()}

    def check(self):
        """Raises ValueError, naming the option and its allowed values, for
        an invalid option (the base has no options)."""

    def check_draws(self):
        """Raises ValueError when a layout can (almost) never be drawn.

        Run once when a pipeline is built, not per layout, as it may draw
        (the base draws nothing)."""

    @property
    def nominal_segments(self):
        """int: the segment count S a layout has (at most, for a scheme
        that drops segments that catch no token)."""
        raise NotImplementedError

    def draw(self, rng):
        """One partition of the grid into segments, and its hierarchy.

        Args:
            rng (np.random.Generator): all randomness comes from here.

        Returns:
            tuple: ``(segment_ids, parents)``. ``segment_ids``: int64
            [h * w], the segment of each token in raster order, numbered
            0..S-1 by the raster position of each segment's first token
            (the raster order relies on it). ``parents``: the hierarchy, a
            list (``[]`` when flat) of int64 arrays, ``parents[0][s]`` the
            level-1 group of segment ``s``, ``parents[1][g]`` the level-2
            group of level-1 group ``g``, ...; groups numbered by first
            token too.
        """
        raise NotImplementedError

    def draw_batch(self, draws, batch):
        """``batch`` partitions at once, for the batch data path
        (:func:`~randsac_mm.segments.batch.draw_token_ranks`).

        This default calls :meth:`draw` once per sample, each from a
        generator seeded by the sample's own draws; a scheme overrides it
        with array code drawing from the same distribution.

        Args:
            draws (callable): ``draws(name, count)`` -> float64 [B, count]
                (:mod:`randsac_mm.segments.draws`).
            batch (int): B.

        Returns:
            tuple: ``(segment_ids, levels)``: int64 [B, N], each row
            numbered as :meth:`draw` numbers its segments, and the group
            of every token at each hierarchy level, a list of int64 [B, N]
            (``[]`` when flat), each row numbered by first token.
        """
        drawn = [self.draw(rng)
                 for rng in sample_generators(draws, 'scheme')]
        segment_ids = np.stack([ids for ids, _ in drawn])
        per_level = zip(*[token_groups(ids, parents)
                          for ids, parents in drawn])
        return segment_ids, [np.stack(level) for level in per_level]


def check_coarsening(hierarchy, num_segments):
    """``hierarchy`` as a tuple of group counts, each smaller than the one
    before, starting below ``num_segments``.

    Raises:
        ValueError: not a tuple of ints, or a level that does not coarsen.
    """
    if not isinstance(hierarchy, (tuple, list)) or not all(
            isinstance(c, int) and not isinstance(c, bool)
            for c in hierarchy):
        raise ValueError(f'hierarchy must be a tuple of ints (coarser '
                         f'group counts), got {hierarchy!r}')
    hierarchy = tuple(hierarchy)
    previous = num_segments
    for level, count in enumerate(hierarchy, start=1):
        if not 2 <= count < previous:
            raise ValueError(
                f'hierarchy {hierarchy} does not coarsen: level {level} has '
                f'{count} groups, allowed 2..{previous - 1} (fewer than the '
                f'{previous} of the level below)')
        previous = count
    return hierarchy
