from .batch_crop_preprocessor import BatchCropDataPreprocessor
from .host_samples_preprocessor import HostSamplesDataPreprocessor
from .pos_embed import sincos_2d_embedding
from .segment_batch import SegmentBatch, gather_tokens

__all__ = ['BatchCropDataPreprocessor', 'HostSamplesDataPreprocessor',
           'SegmentBatch', 'gather_tokens', 'sincos_2d_embedding']
