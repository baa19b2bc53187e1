"""Tiny data roots for every data set type the configs use."""
import pytest

from .. import data_factory


@pytest.fixture(scope='session')
def data_roots(tmp_path_factory):
    base = tmp_path_factory.mktemp('data')
    return {
        'CheckedCIFAR10': data_factory.write_cifar(str(base / 'cifar10')),
        'CheckedCIFAR100': data_factory.write_cifar(str(base / 'cifar100'),
                                                    'cifar100'),
        'CheckedImageNet': data_factory.write_imagenet(str(base / 'imagenet')),
        'ImageNet100': data_factory.write_imagenet100(str(base / 'in100')),
        'UnlabeledImageFolder': data_factory.write_unlabeled(
            str(base / 'own')),
        'CheckedFashionMNIST': data_factory.write_mnist(str(base / 'fmnist')),
    }
