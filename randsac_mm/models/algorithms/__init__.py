from .randsac import RandSAC

__all__ = ['RandSAC']
