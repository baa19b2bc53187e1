"""CIFAR-10/100 from the standard python batches, with layout checks."""
import pickle

from mmpretrain.datasets import CIFAR10, CIFAR100
from mmpretrain.registry import DATASETS

from .layout_errors import DataLayoutError, require_files

__all__ = ['CheckedCIFAR10', 'CheckedCIFAR100']


class _CheckedCIFAR:
    """Mixin: existence instead of md5 checks, and clear layout errors.

    mmpretrain's CIFAR datasets check every batch file's md5 and, when one
    differs, only suggest ``download=True``; machines without network (and
    re-written subsets) need the layout said instead. Each data set gives
    mmpretrain its file lists without the md5s (:func:`without_md5`), and
    checks the files itself first.
    """
    LAYOUT = ''

    def _expected_files(self):
        return [f'{self.base_folder}/{name}'
                for name, _ in self.train_list + self.test_list] + \
            [f"{self.base_folder}/{self.meta['filename']}"]

    def load_data_list(self):
        # The layout said before mmpretrain's own check, which finds every
        # file (no md5 given: file lists below) or suggests download=True.
        require_files(self.data_prefix['root'], self._expected_files(),
                      type(self).__name__, self.LAYOUT)
        try:
            return super().load_data_list()
        except (pickle.UnpicklingError, EOFError, KeyError, ValueError) as e:
            raise DataLayoutError(
                f'{type(self).__name__}: could not read the python batches '
                f'under {self.data_prefix["root"]!r} ({type(e).__name__}: '
                f'{e}). Expected:\n{self.LAYOUT}') from e


def without_md5(files):
    """mmpretrain's ``[name, md5]`` file list with no md5 to check."""
    return [[name, None] for name, _ in files]


@DATASETS.register_module()
class CheckedCIFAR10(_CheckedCIFAR, CIFAR10):
    """mmpretrain's CIFAR10 (``download=False``) with layout errors."""
    train_list = without_md5(CIFAR10.train_list)
    test_list = without_md5(CIFAR10.test_list)
    meta = dict(CIFAR10.meta, md5=None)
    LAYOUT = ('data_root/cifar-10-batches-py/{data_batch_1..5, test_batch, '
              'batches.meta}: pickled dicts with b"data" (uint8 [n, 3072]) '
              'and b"labels"; batches.meta with "label_names"')

    def __init__(self, *args, download=False, **kwargs):
        super().__init__(*args, download=download, **kwargs)


@DATASETS.register_module()
class CheckedCIFAR100(_CheckedCIFAR, CIFAR100):
    """mmpretrain's CIFAR100 (``download=False``) with layout errors."""
    train_list = without_md5(CIFAR100.train_list)
    test_list = without_md5(CIFAR100.test_list)
    meta = dict(CIFAR100.meta, md5=None)
    LAYOUT = ('data_root/cifar-100-python/{train, test, meta}: pickled dicts '
              'with b"data" (uint8 [n, 3072]) and b"fine_labels"; meta with '
              '"fine_label_names"')

    def __init__(self, *args, download=False, **kwargs):
        super().__init__(*args, download=download, **kwargs)
