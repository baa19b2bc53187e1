"""The pretraining data preprocessor: the images go to the device, a
training batch's data samples stay where the loader made them."""
from mmpretrain.models.utils.data_preprocessor import SelfSupDataPreprocessor
from mmpretrain.registry import MODELS

__all__ = ['HostSamplesDataPreprocessor']


@MODELS.register_module()
class HostSamplesDataPreprocessor(SelfSupDataPreprocessor):
    """``SelfSupDataPreprocessor`` that leaves a training batch's data
    samples on the host.

    What pretraining reads of its samples is their layouts (``token_rank``,
    numpy), which RandSAC plans on the host (``RandSAC.plan_batch``); MAE
    reads nothing. Casting them, as ``SelfSupDataPreprocessor`` does, copies
    every sample with its metainfo and sends each one's label to the device
    on its own: 512 copies a batch, host time of the main process that a
    step waiting on it cannot hide (docs/data.md, "Small images on the
    batch path", measures it). Outside training (mmengine's validation and
    test steps, a readout) nothing changes: the samples are cast as
    ``SelfSupDataPreprocessor`` casts them.

    Args:
        **kwargs: ``SelfSupDataPreprocessor``'s (mean, std, to_rgb, ...).
    """

    def forward(self, data, training=False):
        """Returns:
            dict: ``inputs``, float [B, C, H, W] on the device, normalised
            as ``SelfSupDataPreprocessor`` normalises them, and
            ``data_samples``: in training the list given, else cast.
        """
        if not training:
            return super().forward(data, training)
        normalised = super().forward(
            dict(inputs=data['inputs'], data_samples=None), training)
        return dict(normalised, data_samples=data['data_samples'])
