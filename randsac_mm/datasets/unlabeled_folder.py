"""Any folder of images, for pretraining on your own data."""
import os
import os.path as osp

from mmpretrain.datasets import BaseDataset
from mmpretrain.registry import DATASETS

from .layout_errors import IMAGE_EXTENSIONS, DataLayoutError

__all__ = ['UnlabeledImageFolder']


@DATASETS.register_module()
class UnlabeledImageFolder(BaseDataset):
    """Every image under ``data_root``, recursively; no labels.

    Files ending in .jpg, .jpeg, .png, .webp or .bmp (any case) are used,
    in sorted path order. Set the folder with
    ``--cfg-options train_dataloader.dataset.data_root=/my/images``.

    Args:
        data_root (str): the folder.
        extensions (tuple[str]): lower-case file suffixes to use.
    """

    METAINFO = {'classes': ()}

    def __init__(self, data_root='', extensions=IMAGE_EXTENSIONS, **kwargs):
        self.extensions = tuple(e.lower() for e in extensions)
        if not data_root or not osp.isdir(data_root):
            raise DataLayoutError(
                f'UnlabeledImageFolder: data_root {data_root!r} is not a '
                'directory. Expected: a folder holding images (any depth) '
                f'ending in {self.extensions}; set it with --cfg-options '
                'train_dataloader.dataset.data_root=/path/to/images')
        super().__init__(ann_file='', data_root=data_root, **kwargs)

    def load_data_list(self):
        paths = []
        for dirpath, dirnames, names in os.walk(self.data_root,
                                                followlinks=True):
            dirnames.sort()
            paths += [osp.join(dirpath, n) for n in sorted(names)
                      if n.lower().endswith(self.extensions)]
        if not paths:
            raise DataLayoutError(
                f'UnlabeledImageFolder: no images ending in {self.extensions}'
                f' under {self.data_root!r}')
        return [dict(img_path=p) for p in paths]
