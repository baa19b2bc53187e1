from .per_sample_seed import PerSampleSeed
from .segment_generator import RandSACSegmentGenerator

__all__ = ['PerSampleSeed', 'RandSACSegmentGenerator']
