"""scikit-learn's bundled handwritten digits as an mmpretrain dataset.

The 1797 8x8 grey images ship inside scikit-learn, so this is real image data
that needs no download: the embedded default data of ``make demo`` and of
the tests.
"""
import numpy as np
from mmpretrain.datasets import BaseDataset
from mmpretrain.registry import DATASETS
from PIL import Image

__all__ = ['DigitsDataset']

DIGITS_CLASSES = tuple(str(i) for i in range(10))


def load_digits_split(split, test_fraction=0.2, split_seed=0):
    """Returns ``(images, labels, indices)`` of one split of the digits.

    The split is stratified: the first ``round(test_fraction * n_c)`` of a
    fixed permutation of each class ``c`` are the test images. It depends only
    on ``split_seed``, never on the run's seed.

    Returns:
        tuple: ``images`` uint8 [n, 8, 8] in 0..255, ``labels`` int64 [n],
        ``indices`` int64 [n] (positions in ``sklearn.datasets.load_digits``).
    """
    from sklearn.datasets import load_digits

    if split not in ('train', 'test'):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    if not 0 < test_fraction < 1:
        raise ValueError(
            f'test_fraction must be in (0, 1), got {test_fraction}')
    digits = load_digits()
    labels = digits.target.astype(np.int64)
    rng = np.random.default_rng(split_seed)
    is_test = np.zeros(len(labels), dtype=bool)
    for label in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == label))
        is_test[members[:round(test_fraction * len(members))]] = True
    indices = np.flatnonzero(is_test if split == 'test' else ~is_test)
    # The raw pixels are ink counts in 0..16.
    images = np.round(digits.images[indices] * (255 / 16)).astype(np.uint8)
    return images, labels[indices], indices


@DATASETS.register_module()
class DigitsDataset(BaseDataset):
    """scikit-learn's 8x8 handwritten digits, upscaled RGB images.

    Each sample's ``img`` is uint8 [img_size, img_size, 3] (the grey digit,
    bicubic-upscaled and repeated over the channels), ``gt_label`` its digit.

    Args:
        split (str): 'train' (about 80%) or 'test' (about 20%), a
            deterministic stratified split.
        img_size (int): Side of the upscaled images. Defaults to 32.
        test_fraction (float): Fraction of each class in 'test'.
        split_seed (int): Seed of the split (not of training).
        **kwargs: Passed to :class:`mmpretrain.datasets.BaseDataset`
            (``pipeline``, ``test_mode``, ``indices``, ...).
    """

    METAINFO = {'classes': DIGITS_CLASSES}

    def __init__(self,
                 split='train',
                 img_size=32,
                 test_fraction=0.2,
                 split_seed=0,
                 **kwargs):
        if not isinstance(img_size, int) or img_size < 8:
            raise ValueError(
                f'img_size must be an int >= 8, got {img_size!r}')
        if split not in ('train', 'test'):
            raise ValueError(f"split must be 'train' or 'test', got {split!r}")
        self.split = split
        self.img_size = img_size
        self.test_fraction = test_fraction
        self.split_seed = split_seed
        kwargs.setdefault('test_mode', split == 'test')
        super().__init__(ann_file='', **kwargs)

    def _upscale(self, image):
        """uint8 [8, 8] -> uint8 [img_size, img_size, 3]."""
        big = Image.fromarray(image).resize((self.img_size, self.img_size),
                                            Image.BICUBIC)
        return np.repeat(np.asarray(big)[:, :, None], 3, axis=2)

    def load_data_list(self):
        images, labels, indices = load_digits_split(
            self.split, self.test_fraction, self.split_seed)
        return [
            dict(img=self._upscale(image), gt_label=int(label),
                 digits_index=int(index))
            for image, label, index in zip(images, labels, indices)
        ]

    def extra_repr(self):
        return [f'Split: \t{self.split}', f'Image size: \t{self.img_size}']
