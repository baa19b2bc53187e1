"""'patch': every token is its own segment."""
from dataclasses import dataclass

from ..registry import register_scheme
from .square_cells import SquareCellScheme

__all__ = ['PatchScheme']


@register_scheme('patch')
@dataclass(frozen=True)
class PatchScheme(SquareCellScheme):
    """Every token is its own segment (the paper's patch orders).

    Args:
        grid (tuple[int, int]): token grid ``(h, w)``.
        hierarchy (tuple[int, ...]): group counts of coarser levels, each
            smaller than the one before and cutting the level below into
            squares; ``()`` is flat.
    """
    hierarchy: tuple = ()

    cell = 1
    units = 'patches'
