"""The segment schemes, one per module; importing this registers them."""
# Registration order is the order messages list the names in.
# isort: off
from .base import SegmentScheme
from .patch import PatchScheme
from .square import SquareScheme
from .blob import BlobScheme
# isort: on

__all__ = ['BlobScheme', 'PatchScheme', 'SegmentScheme', 'SquareScheme']
