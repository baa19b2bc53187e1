"""ImageNet and ImageNet-100 in the usual folder or annotation-file layout."""
import os
import os.path as osp
from importlib.resources import files

from mmpretrain.datasets import ImageNet
from mmpretrain.registry import DATASETS

from .decoded_images import NamesUndecodableImages
from .image_files import (
    check_image_files,
    is_hidden,
    read_annotation_lines,
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

    def is_valid_file(self, filename):
        # filename: relative to its class folder (mmpretrain's walk).
        return super().is_valid_file(filename) and not is_hidden(filename)

    def load_data_list(self):
        if self.ann_file and self.with_label:
            data_list = [
                dict(img_path=osp.join(self.img_prefix, path),
                     gt_label=label) for path, label in
                read_annotation_lines(self.ann_file, type(self).__name__)]
        else:
            data_list = super().load_data_list()
        check_image_files([d['img_path'] for d in data_list],
                          type(self).__name__, self.img_prefix)
        return data_list


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
        # Scan only the 100 class folders (data_root may be all of ImageNet).
        folder_to_idx = {w: i for i, w in enumerate(self._wnids)}
        samples = []
        root = self.img_prefix
        for wnid in self._wnids:
            for dirpath, _, names in sorted(os.walk(osp.join(root, wnid))):
                for name in sorted(names):
                    path = osp.join(dirpath, name)
                    if self.is_valid_file(osp.relpath(path, root)):
                        samples.append(dict(img_path=path,
                                            gt_label=folder_to_idx[wnid]))
        if not samples:
            raise DataLayoutError(f'ImageNet100: no images under {root!r}')
        check_image_files([s['img_path'] for s in samples], 'ImageNet100',
                          root)
        return samples
