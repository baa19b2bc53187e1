from .randsac_decoder import RandSACDecoder, RandSACDecoderLayer

__all__ = ['RandSACDecoder', 'RandSACDecoderLayer']
