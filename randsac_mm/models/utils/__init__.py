from .pos_embed import sincos_2d_embedding
from .segment_batch import SegmentBatch, gather_tokens

__all__ = ['SegmentBatch', 'gather_tokens', 'sincos_2d_embedding']
