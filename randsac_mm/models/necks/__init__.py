from .randsac_decoder import RandSACDecoder, RandSACDecoderLayer
from .segment_decoder import SegmentDecoder

__all__ = ['RandSACDecoder', 'RandSACDecoderLayer', 'SegmentDecoder']
