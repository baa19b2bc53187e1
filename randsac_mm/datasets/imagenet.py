"""ImageNet and ImageNet-100 in the usual folder or annotation-file layout."""
import os
import os.path as osp
from importlib.resources import files

from mmpretrain.datasets import ImageNet
from mmpretrain.registry import DATASETS

from .decoded_images import NamesUndecodableImages
from .image_files import (
    SHOWN,
    check_image_files,
    is_hidden,
    read_annotation_lines,
    walk_images,
)
from .layout_errors import DataLayoutError, require_files

__all__ = ['CheckedImageNet', 'ImageNet100', 'imagenet100_classes']

IMAGENET_LAYOUT = (
    'either folders: data_root/{train,val}/<wnid>/<image>.JPEG\n'
    'or annotation files: data_root/meta/{train,val}.txt with lines '
    '"<path relative to data_root/<split>> <label>"')


def imagenet100_classes():
    """The 100 WordNet ids of ImageNet-100 (CMC's subset), as shipped."""
    text = files('randsac_mm').joinpath('datasets/meta/imagenet100.txt')
    return tuple(text.read_text().split())


def _check_imagenet_root(dataset, data_root, split, ann_file,
                         num_classes=None):
    if ann_file:
        require_files(data_root, [ann_file], dataset, IMAGENET_LAYOUT)
        return
    require_files(data_root, [split], dataset, IMAGENET_LAYOUT)
    folder = osp.join(data_root, split)
    found = sum(entry.is_dir() for entry in os.scandir(folder))
    if not found:
        raise DataLayoutError(
            f'{dataset}: {folder!r} has no class folders. Expected:\n'
            f'{IMAGENET_LAYOUT}')
    if num_classes is not None and found != num_classes:
        raise DataLayoutError(
            f'{dataset}: {folder!r} has {found} class folders, the folder '
            f'layout needs all {num_classes} (for a subset use an annotation '
            f'file, or ImageNet100). Expected:\n{IMAGENET_LAYOUT}')


@DATASETS.register_module()
class CheckedImageNet(NamesUndecodableImages, ImageNet):
    """mmpretrain's ImageNet with a layout check before loading, and its
    files checked when built (``image_files``): hidden files left out of
    the folder layout, blank lines of an annotation file skipped and a
    malformed one named, a missing or empty image named before training.

    Args:
        data_root (str): e.g. ``data/imagenet``.
        split (str): 'train' or 'val' (folder layout).
        ann_file (str): optional annotation file (``meta/train.txt``).
    """

    def __init__(self, data_root='', split='', ann_file='', **kwargs):
        if split not in ('train', 'val', 'test'):
            raise ValueError(f"split must be 'train', 'val' or 'test', got "
                             f'{split!r}')
        if ann_file == '' and osp.isfile(osp.join(data_root, 'meta',
                                                  f'{split}.txt')):
            ann_file = osp.join('meta', f'{split}.txt')
        _check_imagenet_root(type(self).__name__, data_root, split, ann_file,
                             None if type(self) is not CheckedImageNet
                             else 1000)
        super().__init__(data_root=data_root, split=split, ann_file=ann_file,
                         **kwargs)

    def load_data_list(self):
        if self.ann_file and self.with_label:
            data_list = [
                dict(img_path=osp.join(self.img_prefix, path),
                     gt_label=label) for path, label in
                read_annotation_lines(self.ann_file, type(self).__name__)]
        else:
            data_list = self._class_folder_samples()
        check_image_files([d['img_path'] for d in data_list],
                          type(self).__name__, self.img_prefix)
        return data_list

    def _class_folder_samples(self, classes=None):
        """The folder layout's images, labelled by the index of their class
        folder (``classes``, default every non-hidden folder, sorted), each
        folder walked as ``UnlabeledImageFolder`` walks its root: hidden
        files left out, a folder reached again through a link read once.

        Raises:
            DataLayoutError: class folders without an image, named.
        """
        root, name = self.img_prefix, type(self).__name__
        if classes is None:
            classes = sorted(d for d in os.listdir(root) if not is_hidden(d)
                             and osp.isdir(osp.join(root, d)))
        samples, empty = [], []
        for label, folder in enumerate(classes):
            paths = walk_images(osp.join(root, folder), self.extensions, name)
            empty += [] if paths else [folder]
            samples += [dict(img_path=p, gt_label=label) for p in paths]
        if empty:
            raise DataLayoutError(
                f'{name}: {len(empty)} class folders under {root} hold no '
                f'image ending in {self.extensions}: '
                f'{", ".join(empty[:SHOWN])}'
                f'{" and more" if len(empty) > SHOWN else ""}')
        return samples


@DATASETS.register_module()
class ImageNet100(CheckedImageNet):
    """ImageNet restricted to the 100 classes of ``imagenet100.txt``.

    ``data_root`` may hold the full ImageNet or only the 100 classes, in the
    folder layout; labels are 0..99 in sorted WordNet-id order.
    """

    def __init__(self, data_root='', split='train', **kwargs):
        if kwargs.get('ann_file'):
            raise ValueError('ImageNet100 reads the folder layout; ann_file '
                             'is not supported (use CheckedImageNet with your'
                             ' own annotation file)')
        wnids = sorted(imagenet100_classes())
        _check_imagenet_root('ImageNet100', data_root, split, '')
        present = set(os.listdir(osp.join(data_root, split)))
        missing = [w for w in wnids if w not in present]
        if missing:
            raise DataLayoutError(
                f'ImageNet100: {len(missing)} of its 100 classes are missing '
                f'under {osp.join(data_root, split)!r}, e.g. {missing[:3]}. '
                f'Expected:\n{IMAGENET_LAYOUT}\nwith the WordNet ids of '
                'randsac_mm/datasets/meta/imagenet100.txt')
        self._wnids = wnids
        super().__init__(data_root=data_root, split=split,
                         classes=wnids, **kwargs)

    def load_data_list(self):
        # Only the 100 class folders (data_root may be all of ImageNet).
        samples = self._class_folder_samples(self._wnids)
        check_image_files([s['img_path'] for s in samples], 'ImageNet100',
                          self.img_prefix)
        return samples
