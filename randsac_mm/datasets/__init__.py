from .cifar import CheckedCIFAR10, CheckedCIFAR100
from .digits import DigitsDataset
from .imagenet import CheckedImageNet, ImageNet100, imagenet100_classes
from .layout_errors import DataLayoutError
from .transforms import RandSACSegmentGenerator
from .unlabeled_folder import UnlabeledImageFolder

__all__ = ['CheckedCIFAR10', 'CheckedCIFAR100', 'CheckedImageNet',
           'DataLayoutError', 'DigitsDataset', 'ImageNet100',
           'RandSACSegmentGenerator', 'UnlabeledImageFolder',
           'imagenet100_classes']
