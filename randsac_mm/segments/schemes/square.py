"""'square': M x M squares of tokens."""
from dataclasses import dataclass
from math import gcd

from ..registry import register_scheme
from .square_cells import SquareCellScheme

__all__ = ['SquareScheme']


@register_scheme('square')
@dataclass(frozen=True)
class SquareScheme(SquareCellScheme):
    """M x M squares of tokens (the paper's square segments).

    Args:
        grid (tuple[int, int]): token grid ``(h, w)``.
        square_size (int): M; must divide both grid sides and leave at
            least 2 squares.
        hierarchy (tuple[int, ...]): group counts of coarser levels, each
            smaller than the one before and cutting the level below into
            squares; ``()`` is flat, ``(4,)`` the paper's 16 -> 4.
    """
    square_size: int = 2
    hierarchy: tuple = ()

    @property
    def cell(self):
        return self.square_size

    def check(self):
        height, width = self.grid
        allowed = [m for m in range(1, gcd(height, width) + 1)
                   if height % m == 0 and width % m == 0
                   and (height // m) * (width // m) >= 2]
        if self.square_size not in allowed:
            raise ValueError(
                f'square_size (M) must divide both sides of the {height}x'
                f'{width} token grid and leave at least 2 squares: allowed '
                f'{allowed}, got {self.square_size!r}')
        super().check()
