"""The data preprocessor of the batch data path: crops where the batch
lives, then normalises."""
import numpy as np
from mmpretrain.models.utils.data_preprocessor import SelfSupDataPreprocessor
from mmpretrain.registry import MODELS

from randsac_mm.datasets.batch import crop_resize_flip

__all__ = ['BatchCropDataPreprocessor']


@MODELS.register_module()
class BatchCropDataPreprocessor(SelfSupDataPreprocessor):
    """``SelfSupDataPreprocessor`` that first applies each sample's random
    resized crop and flip, drawn by ``InMemoryBatchImages``, to the whole
    batch on its device (``crop_resize_flip``: Pillow's pixels).

    The boxes, flips, output size and interpolation come from the
    samples' metainfo (``crop_box``, ``flip``, ``crop_size``,
    ``interpolation``), so the crop is stated once, in the data set.
    Samples without them (another data set) are refused: this
    preprocessor belongs to that data set.

    Args:
        **kwargs: ``SelfSupDataPreprocessor``'s (mean, std, to_rgb, ...).
    """

    def forward(self, data, training=False):
        data = self.cast_data(data)
        samples = data['data_samples']
        if not samples or 'crop_box' not in samples[0].metainfo_keys():
            raise KeyError(
                'BatchCropDataPreprocessor: the data samples carry no '
                'crop_box; it preprocesses the batches of '
                'InMemoryBatchImages (configs/_base_/datasets/*_batch.py)')
        first = samples[0]
        boxes = np.stack([s.crop_box for s in samples])
        flips = np.array([s.flip for s in samples])
        inputs = crop_resize_flip(data['inputs'], boxes, flips,
                                  first.crop_size, first.interpolation)
        return super().forward(dict(data, inputs=inputs), training)
