from .randsac_two_stream_vit import RandSACTwoStreamViT
from .randsac_vit import RandSACViT, SegmentCausalLayer
from .randsac_vit_pyramid import RandSACViTPyramid

__all__ = ['RandSACTwoStreamViT', 'RandSACViT', 'RandSACViTPyramid',
           'SegmentCausalLayer']
