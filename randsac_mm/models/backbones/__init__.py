from .randsac_two_stream_vit import RandSACTwoStreamViT
from .randsac_vit import RandSACViT
from .randsac_vit_pyramid import RandSACViTPyramid
from .segment_causal_layer import SegmentCausalLayer

__all__ = ['RandSACTwoStreamViT', 'RandSACViT', 'RandSACViTPyramid',
           'SegmentCausalLayer']
