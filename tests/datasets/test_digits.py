import numpy as np
import pytest
from sklearn.datasets import load_digits

from randsac_mm.datasets import DigitsDataset


@pytest.fixture(scope='module')
def splits():
    return DigitsDataset(split='train'), DigitsDataset(split='test')


def test_sizes_and_disjoint_splits(splits):
    train, test = splits
    n = len(load_digits().target)
    assert len(train) + len(test) == n == 1797
    assert abs(len(test) / n - 0.2) < 0.01
    train_idx = {train.get_data_info(i)['source_index']
                 for i in range(len(train))}
    test_idx = {test.get_data_info(i)['source_index']
                for i in range(len(test))}
    assert not train_idx & test_idx
    assert train_idx | test_idx == set(range(n))


def test_split_is_stratified(splits):
    train, test = splits
    all_counts = np.bincount(load_digits().target, minlength=10)
    test_counts = np.bincount(test.get_gt_labels(), minlength=10)
    assert np.array_equal(test_counts, np.round(0.2 * all_counts))
    assert np.array_equal(
        np.bincount(train.get_gt_labels(), minlength=10),
        all_counts - test_counts)


def test_split_is_deterministic():
    a = DigitsDataset(split='test')
    b = DigitsDataset(split='test')
    assert [a.get_data_info(i)['source_index'] for i in range(len(a))] == \
        [b.get_data_info(i)['source_index'] for i in range(len(b))]


def test_images_are_rgb_uint8_upscaled(splits):
    train, _ = splits
    img = train[0]['img']
    assert img.shape == (32, 32, 3) and img.dtype == np.uint8
    assert np.array_equal(img[..., 0], img[..., 2])
    assert img.max() > 200 and img.min() < 30
    assert DigitsDataset(split='test', img_size=48)[0]['img'].shape == \
        (48, 48, 3)


def test_labels_and_pixels_agree_with_sklearn(splits):
    digits = load_digits()
    native = DigitsDataset(split='train', img_size=8)
    for i in range(0, len(native), 97):
        info = native.get_data_info(i)
        index = info['source_index']
        assert info['gt_label'] == digits.target[index]
        expected = np.round(digits.images[index] * 255 / 16).astype(np.uint8)
        assert np.array_equal(info['img'][..., 0], expected)
    assert splits[0].CLASSES == tuple(str(i) for i in range(10))


@pytest.mark.parametrize('kwargs, message', [
    (dict(split='val'), r"split must be one of \('train', 'test'\)"),
    (dict(img_size=4), 'img_size must be an int >= 8'),
    (dict(test_fraction=1.5), r'test_fraction must be in \(0, 1\)'),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DigitsDataset(**kwargs)
