"""Grey digit-like images as RGB samples of a fixed size.

Every small grey data set of the package (scikit-learn's digits, MNIST,
Fashion-MNIST) goes through here, so they all give the same sample:
``img`` uint8 [img_size, img_size, 3], ``gt_label`` and ``source_index``
(the image's position in the files it came from).
"""
import numpy as np
from mmpretrain.datasets import BaseDataset
from PIL import Image

__all__ = ['DIGIT_CLASSES', 'GreyImagesDataset', 'StratifiedGreyImages',
           'stratified_test_mask']

DIGIT_CLASSES = tuple(str(i) for i in range(10))


def stratified_test_mask(labels, test_fraction, split_seed):
    """bool [n]: the first ``round(test_fraction * n_c)`` members of a fixed
    permutation of each class ``c``. Depends on ``split_seed`` only, never
    on a run's seed."""
    if not 0 < test_fraction < 1:
        raise ValueError(
            f'test_fraction must be in (0, 1), got {test_fraction}')
    rng = np.random.default_rng(split_seed)
    is_test = np.zeros(len(labels), dtype=bool)
    for label in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == label))
        is_test[members[:round(test_fraction * len(members))]] = True
    return is_test


class GreyImagesDataset(BaseDataset):
    """Base of the grey data sets: subclasses return the split's images.

    Images smaller than ``img_size`` by at most a quarter are padded with
    black around the centre (MNIST's 28 px -> 32 px, LeNet's convention,
    which keeps every pixel as it is); others are resized bicubically
    (digits' 8 px -> 32 px).

    Args:
        split (str): 'train' or 'test'.
        img_size (int): side of the RGB samples. Defaults to 32, the paper's
            CIFAR size: 8x8 tokens with P=4.
        **kwargs: :class:`mmpretrain.datasets.BaseDataset` arguments
            (``pipeline``, ``indices``, ``test_mode``, ...).
    """

    SPLITS = ('train', 'test')

    def __init__(self, split='train', img_size=32, **kwargs):
        if split not in self.SPLITS:
            raise ValueError(f'split must be one of {self.SPLITS}, got '
                             f'{split!r}')
        if not isinstance(img_size, int) or img_size < 8:
            raise ValueError(
                f'img_size must be an int >= 8, got {img_size!r}')
        self.split = split
        self.img_size = img_size
        kwargs.setdefault('test_mode', split == 'test')
        kwargs.setdefault('ann_file', '')
        super().__init__(**kwargs)

    def load_split(self):
        """Returns ``images`` uint8 [n, h, w], ``labels`` int64 [n] and
        ``indices`` int64 [n] (each image's position in its source)."""
        raise NotImplementedError

    def to_rgb(self, image):
        """uint8 [h, w] -> uint8 [img_size, img_size, 3]."""
        h, w = image.shape
        side = self.img_size
        if h <= side and w <= side and 4 * min(h, w) >= 3 * side:
            canvas = np.zeros((side, side), dtype=np.uint8)
            top, left = (side - h) // 2, (side - w) // 2
            canvas[top:top + h, left:left + w] = image
        else:
            canvas = np.asarray(Image.fromarray(image).resize(
                (side, side), Image.BICUBIC))
        return np.repeat(canvas[:, :, None], 3, axis=2)

    def load_data_list(self):
        images, labels, indices = self.load_split()
        return [dict(img=self.to_rgb(image), gt_label=int(label),
                     source_index=int(index))
                for image, label, index in zip(images, labels, indices)]

    def extra_repr(self):
        return [f'Split: \t{self.split}', f'Image size: \t{self.img_size}']


class StratifiedGreyImages(GreyImagesDataset):
    """A grey data set without an official split, split here: the test
    split is a fixed stratified share of each class.

    Args:
        test_fraction (float): share of each class in 'test'.
        split_seed (int): seed of the split (not of training).
        **kwargs: :class:`GreyImagesDataset` arguments.
    """

    def __init__(self, test_fraction=0.2, split_seed=0, **kwargs):
        stratified_test_mask(np.zeros(1), test_fraction, split_seed)
        self.test_fraction = test_fraction
        self.split_seed = split_seed
        super().__init__(**kwargs)

    def load_all(self):
        """Returns every image (uint8 [n, h, w]) and label (int64 [n])."""
        raise NotImplementedError

    def load_split(self):
        images, labels = self.load_all()
        is_test = stratified_test_mask(labels, self.test_fraction,
                                       self.split_seed)
        indices = np.flatnonzero(is_test if self.split == 'test'
                                 else ~is_test)
        return images[indices], labels[indices], indices
