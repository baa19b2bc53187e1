"""Segments that are square cells of the grid (patches, M x M squares),
grouped into squares of squares."""
from dataclasses import dataclass
from math import gcd

import numpy as np

from ..hierarchy import square_group_side, square_hierarchy, token_groups
from ..partitions import square_segment_ids
from .base import SegmentScheme, check_coarsening

__all__ = ['SquareCellScheme']


def square_counts(rows, cols):
    """The group counts in [2, rows * cols) that cut a rows x cols grid into
    squares of squares, largest first."""
    sides = [s for s in range(2, gcd(rows, cols) + 1)
             if rows % s == 0 and cols % s == 0]
    return sorted({(rows // s) * (cols // s) for s in sides} - {1},
                  reverse=True)


@dataclass(frozen=True)
class SquareCellScheme(SegmentScheme):
    """Segments are the ``cell x cell`` blocks of the grid, numbered
    row-major; each hierarchy level groups the level below into squares.
    Draws take no randomness.

    A subclass declares the option ``hierarchy`` (a tuple of group counts)
    and gives ``cell``.
    """
    # What the cells are called in messages.
    units = 'squares'

    @property
    def cell(self):
        """int: the side of a segment in tokens."""
        raise NotImplementedError

    @property
    def nominal_segments(self):
        return self.grid[0] * self.grid[1] // (self.cell * self.cell)

    def check(self):
        hierarchy = check_coarsening(self.hierarchy, self.nominal_segments)
        object.__setattr__(self, 'hierarchy', hierarchy)
        rows, cols = self.grid[0] // self.cell, self.grid[1] // self.cell
        units = self.units
        for level, count in enumerate(hierarchy, start=1):
            side = square_group_side(rows, cols, count)
            if side is None:
                allowed = square_counts(rows, cols) or 'none'
                raise ValueError(
                    f'hierarchy {hierarchy}: level {level} cannot group the '
                    f'{rows}x{cols} grid of {units} into {count} squares of '
                    f'squares; allowed counts: {allowed}')
            rows, cols = rows // side, cols // side
            units = f'level-{level} partitions'

    def draw(self, rng):
        height, width = self.grid
        cell = self.cell
        return (square_segment_ids(height, width, cell),
                square_hierarchy(height // cell, width // cell,
                                 self.hierarchy))

    def draw_batch(self, draws, batch):
        # The partition is fixed: every sample has the same one.
        segment_ids, parents = self.draw(None)
        shape = (batch, len(segment_ids))
        return (np.broadcast_to(segment_ids, shape),
                [np.broadcast_to(level, shape)
                 for level in token_groups(segment_ids, parents)])
