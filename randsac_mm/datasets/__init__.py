from .digits import DigitsDataset
from .transforms import RandSACSegmentGenerator

__all__ = ['DigitsDataset', 'RandSACSegmentGenerator']
