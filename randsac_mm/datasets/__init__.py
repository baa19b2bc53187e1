from .cifar import CheckedCIFAR10, CheckedCIFAR100
from .digits import DigitsDataset
from .imagenet import CheckedImageNet, ImageNet100, imagenet100_classes
from .layout_errors import DataLayoutError
from .mnist import CheckedFashionMNIST, CheckedMNIST, MNIST5k
from .transforms import PerSampleSeed, RandSACSegmentGenerator
from .unlabeled_folder import UnlabeledImageFolder

__all__ = ['CheckedCIFAR10', 'CheckedCIFAR100',
           'CheckedFashionMNIST', 'CheckedImageNet',
           'CheckedMNIST', 'MNIST5k',
           'DataLayoutError', 'DigitsDataset', 'ImageNet100', 'PerSampleSeed',
           'RandSACSegmentGenerator', 'UnlabeledImageFolder',
           'imagenet100_classes']
