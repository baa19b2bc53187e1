"""Any folder of images, for pretraining on your own data."""
import os.path as osp

from mmpretrain.datasets import BaseDataset
from mmpretrain.registry import DATASETS

from .decoded_images import NamesUndecodableImages
from .image_files import check_headers, check_image_files, walk_images
from .layout_errors import IMAGE_EXTENSIONS, DataLayoutError

__all__ = ['UnlabeledImageFolder']


@DATASETS.register_module()
class UnlabeledImageFolder(NamesUndecodableImages, BaseDataset):
    """Every image under ``data_root``, recursively; no labels.

    Files ending in .jpg, .jpeg, .png, .webp or .bmp (any case) are used,
    in sorted path order; hidden files and folders are left out and each
    folder is read once however many links reach it, and a missing (broken
    link) or empty file, or one whose header is no image's, stops the
    build, all named (``image_files``). A file that fails later, when its
    pixels are decoded (cut short), is skipped for another image, named in
    the log and counted: a folder of a million images is not stopped hours
    in by one. Set the folder with
    ``--cfg-options train_dataloader.dataset.data_root=/my/images``.

    Args:
        data_root (str): the folder.
        extensions (tuple[str]): lower-case file suffixes to use.
    """

    METAINFO = {'classes': ()}
    SKIPS_UNDECODABLE = True

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
        paths = walk_images(self.data_root, self.extensions,
                            'UnlabeledImageFolder')
        if not paths:
            raise DataLayoutError(
                f'UnlabeledImageFolder: no images ending in {self.extensions}'
                f' under {self.data_root!r}')
        check_image_files(paths, 'UnlabeledImageFolder', self.data_root)
        check_headers(paths, 'UnlabeledImageFolder', self.data_root)
        return [dict(img_path=p) for p in paths]
