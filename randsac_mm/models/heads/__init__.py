from .randsac_head import RandSACPretrainHead

__all__ = ['RandSACPretrainHead']
