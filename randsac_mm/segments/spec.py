"""What a segment layout is made of, validated once (numpy-free).

A :class:`SegmentSpec` holds the arguments of the paper's segment schemes for
one token grid. Every invalid combination fails here, when a config is built,
with a message that names the argument and the values it allows.
"""
from dataclasses import dataclass
from math import gcd, isqrt

__all__ = ['SEGMENT_TYPES', 'SERIALIZATIONS', 'SegmentSpec', 'token_grid',
           'square_group_side']

SEGMENT_TYPES = ('patch', 'square', 'blob')
SERIALIZATIONS = ('random', 'raster')


def _pair(value, name):
    if isinstance(value, int) and not isinstance(value, bool):
        return value, value
    if (isinstance(value, (tuple, list)) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool)
                    for v in value)):
        return tuple(value)
    raise ValueError(f'{name} must be an int or a pair of ints (h, w), '
                     f'got {value!r}')


def token_grid(input_size, patch_size):
    """The ``(h, w)`` token grid of an image cut into patches.

    Args:
        input_size (int | tuple[int, int]): image side(s) in pixels.
        patch_size (int): patch side P in pixels.

    Raises:
        ValueError: when a side is not a positive multiple of ``patch_size``.
    """
    height, width = _pair(input_size, 'input_size')
    if not isinstance(patch_size, int) or isinstance(patch_size, bool) \
            or patch_size < 1:
        raise ValueError(f'patch_size must be a positive int, got '
                         f'{patch_size!r}')
    if height < 1 or width < 1 or height % patch_size or width % patch_size:
        raise ValueError(
            f'input_size {height}x{width} must be divisible by patch_size '
            f'{patch_size}: allowed sides are positive multiples of '
            f'{patch_size}')
    return height // patch_size, width // patch_size


def square_group_side(rows, cols, count):
    """Side s (in cells) of the s x s squares that cut a rows x cols grid of
    cells into ``count`` squares, or None when no such s exists."""
    if count < 1 or (rows * cols) % count:
        return None
    side = isqrt(rows * cols // count)
    if side * side * count != rows * cols or rows % side or cols % side:
        return None
    return side


def _square_counts(rows, cols):
    """The group counts in [2, rows * cols) that cut a rows x cols grid into
    squares of squares, largest first."""
    sides = [s for s in range(2, gcd(rows, cols) + 1)
             if rows % s == 0 and cols % s == 0]
    return sorted({(rows // s) * (cols // s) for s in sides} - {1},
                  reverse=True)


@dataclass(frozen=True)
class SegmentSpec:
    """The arguments of one segment scheme over an ``h x w`` token grid.

    Args:
        grid (tuple[int, int]): token grid ``(h, w)``.
        segment (str): 'patch' (each token is a segment), 'square' (M x M
            squares) or 'blob' (K Gaussian blobs, paper appendix).
        square_size (int): M, for 'square'. Must divide both grid sides.
        num_segments (int): K, for 'blob': 2 <= K <= h * w.
        hierarchy (tuple[int, ...]): group counts of coarser levels, each
            smaller than the one before; ``()`` is flat, ``(4,)`` groups
            the segments into 4 partitions (the paper's 16 -> 4).
        serialization (str): 'random' or 'raster'.
        coherent (bool): False reassigns tokens to segments at random,
            keeping segment sizes (the paper's "Shuffle" ablation).
        exact_counts (bool): for 'blob', redraw until all K components
            catch a token and every hierarchy level has exactly its count
            of groups (the paper's draw conditioned on that). The default,
            False, is the paper's appendix: empty components are dropped,
            so a layout may have fewer segments and groups
            (docs/experiments.md, "Blob counts"). Squares and patches always
            have their nominal counts.
    """
    grid: tuple
    segment: str = 'square'
    square_size: int = 2
    num_segments: int = 16
    hierarchy: tuple = ()
    serialization: str = 'random'
    coherent: bool = True
    exact_counts: bool = False

    def __post_init__(self):
        height, width = _pair(self.grid, 'grid')
        if height < 1 or width < 1 or height * width < 2:
            raise ValueError(f'grid must have at least 2 tokens, got '
                             f'{height}x{width}')
        object.__setattr__(self, 'grid', (height, width))
        if self.segment not in SEGMENT_TYPES:
            raise ValueError(f'segment must be one of {SEGMENT_TYPES}, got '
                             f'{self.segment!r}')
        if self.serialization not in SERIALIZATIONS:
            raise ValueError(f'serialization must be one of {SERIALIZATIONS},'
                             f' got {self.serialization!r}')
        for flag in ('coherent', 'exact_counts'):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f'{flag} must be True or False, got '
                                 f'{getattr(self, flag)!r}')
        if self.segment == 'square':
            self._check_square_size()
        if self.segment == 'blob':
            self._check_num_segments()
        self._check_hierarchy()

    @property
    def num_tokens(self):
        return self.grid[0] * self.grid[1]

    @property
    def cell(self):
        """Side of the square cells that 'patch' and 'square' cut (1 or M)."""
        return self.square_size if self.segment == 'square' else 1

    @property
    def nominal_segments(self):
        """Segment count before blob components that catch no token are
        dropped (squares and patches always have exactly this many)."""
        if self.segment == 'blob':
            return self.num_segments
        return self.num_tokens // (self.cell * self.cell)

    def _check_square_size(self):
        height, width = self.grid
        allowed = [m for m in range(1, gcd(height, width) + 1)
                   if height % m == 0 and width % m == 0
                   and (height // m) * (width // m) >= 2]
        if self.square_size not in allowed:
            raise ValueError(
                f'square_size (M) must divide both sides of the {height}x'
                f'{width} token grid and leave at least 2 squares: allowed '
                f'{allowed}, got {self.square_size!r}')

    def _check_num_segments(self):
        k = self.num_segments
        if not isinstance(k, int) or isinstance(k, bool) or \
                not 2 <= k <= self.num_tokens:
            raise ValueError(
                f'num_segments (K) must be an int in [2, {self.num_tokens}] '
                f'(the token count of the {self.grid[0]}x{self.grid[1]} '
                f'grid), got {k!r}')

    def _check_hierarchy(self):
        levels = self.hierarchy
        if not isinstance(levels, (tuple, list)) or not all(
                isinstance(c, int) and not isinstance(c, bool)
                for c in levels):
            raise ValueError(f'hierarchy must be a tuple of ints (coarser '
                             f'group counts), got {levels!r}')
        object.__setattr__(self, 'hierarchy', tuple(levels))
        previous = self.nominal_segments
        rows, cols = (self.grid[0] // self.cell, self.grid[1] // self.cell)
        units = 'patches' if self.segment == 'patch' else 'squares'
        for level, count in enumerate(levels, start=1):
            if not 2 <= count < previous:
                raise ValueError(
                    f'hierarchy {tuple(levels)} does not coarsen: level '
                    f'{level} has {count} groups, allowed 2..{previous - 1} '
                    f'(fewer than the {previous} of the level below)')
            if self.segment != 'blob':
                side = square_group_side(rows, cols, count)
                if side is None:
                    allowed = _square_counts(rows, cols) or 'none'
                    raise ValueError(
                        f'hierarchy {tuple(levels)}: level {level} cannot '
                        f'group the {rows}x{cols} grid of {units} into '
                        f'{count} squares of squares; allowed counts: '
                        f'{allowed}')
                rows, cols = rows // side, cols // side
                units = f'level-{level} partitions'
            previous = count
