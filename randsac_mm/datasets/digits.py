"""scikit-learn's bundled handwritten digits as an mmpretrain dataset.

The 1797 8x8 grey images ship inside scikit-learn, so this is real image data
that needs no download.
"""
import numpy as np
from mmpretrain.registry import DATASETS

from .grey_images import DIGIT_CLASSES, StratifiedGreyImages

__all__ = ['DigitsDataset']


@DATASETS.register_module()
class DigitsDataset(StratifiedGreyImages):
    """scikit-learn's 8x8 handwritten digits, upscaled RGB images.

    Each sample's ``img`` is uint8 [img_size, img_size, 3] (the grey digit,
    bicubic-upscaled and repeated over the channels), ``gt_label`` its digit,
    ``source_index`` its position in ``sklearn.datasets.load_digits``.

    Args:
        split (str): 'train' (about 80%) or 'test' (about 20%), a
            deterministic stratified split.
        img_size (int): Side of the upscaled images. Defaults to 32.
        test_fraction (float): Fraction of each class in 'test'.
        split_seed (int): Seed of the split (not of training).
        **kwargs: Passed to :class:`mmpretrain.datasets.BaseDataset`
            (``pipeline``, ``test_mode``, ``indices``, ...).
    """

    METAINFO = {'classes': DIGIT_CLASSES}

    def load_all(self):
        from sklearn.datasets import load_digits
        digits = load_digits()
        # The raw pixels are ink counts in 0..16.
        images = np.round(digits.images * (255 / 16)).astype(np.uint8)
        return images, digits.target.astype(np.int64)
