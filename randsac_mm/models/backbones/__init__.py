from .randsac_two_stream_vit import RandSACTwoStreamViT
from .randsac_vit import RandSACViT

__all__ = ['RandSACTwoStreamViT', 'RandSACViT']
