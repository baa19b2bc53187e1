from .attention import (ATTENTION_KERNELS, explicit_attention,
                        masked_encoder_layer, masked_self_attention,
                        multihead_attention, query_stream_layer)
from .pos_embed import sincos_2d_embedding
from .segment_batch import SegmentBatch, gather_tokens

__all__ = ['ATTENTION_KERNELS', 'SegmentBatch', 'explicit_attention',
           'gather_tokens', 'masked_encoder_layer', 'masked_self_attention',
           'multihead_attention', 'query_stream_layer', 'sincos_2d_embedding']
