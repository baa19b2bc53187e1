from .segment_generator import RandSACSegmentGenerator

__all__ = ['RandSACSegmentGenerator']
