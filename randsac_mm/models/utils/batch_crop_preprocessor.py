"""The data preprocessor of the batch data path: crops where the batch
lives, then normalises."""
import numpy as np
import torch
from mmpretrain.registry import MODELS

from randsac_mm.datasets.batch import crop_resize_flip

from .host_samples_preprocessor import HostSamplesDataPreprocessor
from .segment_batch import to_device

__all__ = ['BatchCropDataPreprocessor']


@MODELS.register_module()
class BatchCropDataPreprocessor(HostSamplesDataPreprocessor):
    """``HostSamplesDataPreprocessor`` that first applies each sample's
    random resized crop and flip, drawn by ``InMemoryBatchImages``, to the
    whole batch on its device (``crop_resize_flip``: Pillow's pixels).

    The boxes, flips, output size and interpolation come from the
    samples' metainfo (``crop_box``, ``flip``, ``crop_size``,
    ``interpolation``), so the crop is stated once, in the data set. A
    training batch must carry them (another data set's is refused), and
    one tensor (``collate_fn=dict(type='default_collate')``). Outside
    training, a batch without crops (a readout's labelled images, whole)
    is normalised as ``SelfSupDataPreprocessor`` does.

    Args:
        **kwargs: ``SelfSupDataPreprocessor``'s (mean, std, to_rgb, ...).
    """

    def forward(self, data, training=False):
        samples = data['data_samples']
        cropped = bool(samples) and 'crop_box' in samples[0].metainfo_keys()
        if not cropped and not training:  # whole images: normalise only
            return super().forward(data, training)
        if not cropped:
            raise KeyError(
                "BatchCropDataPreprocessor: a training batch's data samples "
                'carry no crop_box; it preprocesses the batches of the '
                'InMemoryBatchImages data set')
        if not torch.is_tensor(data['inputs']):
            raise TypeError(
                'BatchCropDataPreprocessor: inputs must be one tensor [B, C, '
                "H, W]; collate with collate_fn=dict(type='default_collate')"
                f", got {type(data['inputs']).__name__}")
        # The boxes and flips go from pinned memory, so the host does not
        # wait for the device (a plain copy to CUDA synchronises).
        boxes = to_device(np.array([s.crop_box for s in samples]),
                          self.device)
        flips = to_device(np.array([s.flip for s in samples]), self.device)
        first = samples[0]
        inputs = crop_resize_flip(self.cast_data(data['inputs']), boxes,
                                  flips, first.crop_size, first.interpolation)
        return super().forward(dict(data, inputs=inputs), training)
