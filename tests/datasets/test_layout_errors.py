"""A missing or malformed data root fails at build time with the layout."""
import os
import pickle
import shutil

import pytest

from randsac_mm.datasets import (
    CheckedCIFAR10,
    CheckedCIFAR100,
    CheckedImageNet,
    DataLayoutError,
    ImageNet100,
    UnlabeledImageFolder,
)

from .. import data_factory


@pytest.mark.parametrize('cls, kwargs, expected', [
    (CheckedCIFAR10, dict(split='train'), 'cifar-10-batches-py/'),
    (CheckedCIFAR100, dict(split='train'), 'cifar-100-python/'),
    (CheckedImageNet, dict(split='train'), '{train,val}/<wnid>/'),
    (ImageNet100, dict(split='train'), '{train,val}/<wnid>/'),
    (UnlabeledImageFolder, dict(), 'a folder holding images'),
])
def test_missing_root(tmp_path, cls, kwargs, expected):
    with pytest.raises(DataLayoutError, match='Expected') as info:
        cls(data_root=str(tmp_path / 'nowhere'), **kwargs)
    assert expected in str(info.value)
    assert 'nowhere' in str(info.value)


def test_cifar_missing_batch_is_named(tmp_path):
    data_factory.write_cifar(str(tmp_path))
    os.remove(tmp_path / 'cifar-10-batches-py' / 'data_batch_3')
    with pytest.raises(DataLayoutError, match=r"lacks \['cifar-10-batches-py/"
                       r"data_batch_3'\]"):
        CheckedCIFAR10(data_root=str(tmp_path), split='train')


def test_cifar_corrupted_batch(tmp_path):
    data_factory.write_cifar(str(tmp_path), 'cifar100')
    with open(tmp_path / 'cifar-100-python' / 'train', 'wb') as f:
        f.write(b'not a pickle')
    with pytest.raises(DataLayoutError, match='could not read the python '
                       'batches'):
        CheckedCIFAR100(data_root=str(tmp_path), split='train')


def test_cifar_batch_without_labels(tmp_path):
    data_factory.write_cifar(str(tmp_path))
    with open(tmp_path / 'cifar-10-batches-py' / 'data_batch_1', 'wb') as f:
        pickle.dump({'data': []}, f)
    with pytest.raises(DataLayoutError, match='Expected'):
        CheckedCIFAR10(data_root=str(tmp_path), split='train')


def test_cifar_reads_real_format(tmp_path):
    data_factory.write_cifar(str(tmp_path), per_batch=3)
    train = CheckedCIFAR10(data_root=str(tmp_path), split='train')
    test = CheckedCIFAR10(data_root=str(tmp_path), split='test')
    assert (len(train), len(test)) == (15, 3)
    assert train[0]['img'].shape == (32, 32, 3)
    assert len(train.CLASSES) == 10


def test_imagenet_split_without_class_folders(tmp_path):
    (tmp_path / 'train').mkdir()
    with pytest.raises(DataLayoutError, match='has no class folders'):
        CheckedImageNet(data_root=str(tmp_path), split='train')


def test_imagenet_folder_layout_needs_1000_classes(tmp_path):
    data_factory.write_image_folder(str(tmp_path), ['n01440764', 'n01443537'])
    with pytest.raises(DataLayoutError, match='has 2 class folders, the '
                       'folder layout needs all 1000'):
        CheckedImageNet(data_root=str(tmp_path), split='train')


def test_imagenet_folder_layout(tmp_path):
    data_factory.write_imagenet(str(tmp_path))
    train = CheckedImageNet(data_root=str(tmp_path), split='train')
    assert len(train) == 1000 and train.get_data_info(999)['gt_label'] == 999


def test_imagenet_annotation_file_layout(tmp_path):
    data_factory.write_image_folder(str(tmp_path), ['n01440764', 'n01443537'],
                                    per_class=2)
    (tmp_path / 'meta').mkdir()
    (tmp_path / 'meta' / 'val.txt').write_text(
        'n01440764/n01440764_0.JPEG 0\nn01443537/n01443537_1.JPEG 1\n')
    val = CheckedImageNet(data_root=str(tmp_path), split='val')
    assert len(val) == 2 and val.get_data_info(1)['gt_label'] == 1


def test_imagenet100_needs_its_100_classes(tmp_path):
    data_factory.write_imagenet100(str(tmp_path))
    train = ImageNet100(data_root=str(tmp_path), split='train')
    assert len(train) == 100 and len(train.CLASSES) == 100
    labels = sorted(train.get_data_info(i)['gt_label'] for i in range(100))
    assert labels == list(range(100))
    # Extra ImageNet classes are ignored ...
    data_factory.write_image_folder(str(tmp_path), ['n99999999'],
                                    splits=('train', ))
    assert len(ImageNet100(data_root=str(tmp_path), split='train')) == 100
    # ... missing ones are an error.
    shutil.rmtree(tmp_path / 'train' / sorted(os.listdir(tmp_path /
                                                          'train'))[0])
    with pytest.raises(DataLayoutError, match='1 of its 100 classes are '
                       'missing'):
        ImageNet100(data_root=str(tmp_path), split='train')


def test_unlabeled_folder_is_recursive_and_filters_extensions(tmp_path):
    data_factory.write_unlabeled(str(tmp_path))
    dataset = UnlabeledImageFolder(data_root=str(tmp_path))
    names = sorted(os.path.relpath(dataset.get_data_info(i)['img_path'],
                                   tmp_path) for i in range(len(dataset)))
    assert names == ['a.jpg', 'sub/b.png', 'sub/d.JPG', 'sub/deeper/c.webp']


def test_unlabeled_folder_without_images(tmp_path):
    (tmp_path / 'notes.txt').write_text('x')
    with pytest.raises(DataLayoutError, match='no images ending in'):
        UnlabeledImageFolder(data_root=str(tmp_path))
