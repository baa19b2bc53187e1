from .matched_mae import mae_matched_to_randsac
from .randsac import RandSAC

__all__ = ['RandSAC', 'mae_matched_to_randsac']
