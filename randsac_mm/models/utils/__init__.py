from .batch_crop_preprocessor import BatchCropDataPreprocessor
from .host_samples_preprocessor import HostSamplesDataPreprocessor
from .pos_embed import sincos_2d_embedding
from .segment_batch import (
    MaskedAttention,
    SegmentBatch,
    cross_rule,
    decoder_rule,
    encoder_rule,
    gather_tokens,
)

__all__ = ['BatchCropDataPreprocessor', 'HostSamplesDataPreprocessor',
           'MaskedAttention', 'SegmentBatch', 'cross_rule', 'decoder_rule',
           'encoder_rule', 'gather_tokens', 'sincos_2d_embedding']
