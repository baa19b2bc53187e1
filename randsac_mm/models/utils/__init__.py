from .attention import (
                        ATTENTION_KERNELS,
                        attention_dropout,
                        attention_output,
                        explicit_attention,
                        multihead_attention,
)
from .pos_embed import sincos_2d_embedding
from .segment_batch import SegmentBatch, gather_tokens

__all__ = ['ATTENTION_KERNELS', 'SegmentBatch', 'attention_dropout',
           'attention_output', 'explicit_attention', 'gather_tokens',
           'multihead_attention', 'sincos_2d_embedding']
