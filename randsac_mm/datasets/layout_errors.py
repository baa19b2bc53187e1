"""Checks that a data root has the on-disk layout a dataset expects.

A missing or malformed data root must fail when the dataset is built, with
the expected layout spelled out, not deep inside a dataloader worker.
"""
import os.path as osp

__all__ = ['DataLayoutError', 'require_files', 'IMAGE_EXTENSIONS']

IMAGE_EXTENSIONS = ('.jpg', '.jpeg', '.png', '.webp', '.bmp')


class DataLayoutError(FileNotFoundError):
    """The data root does not have the expected layout."""


def require_files(root, paths, dataset, layout):
    """Raises DataLayoutError naming every missing path and the layout.

    Args:
        root (str): the data root.
        paths (list[str]): paths that must exist, relative to ``root`` or
            absolute (as mmengine datasets hold them after joining their
            ``data_root``); the message names them relative to ``root``.
        dataset (str): dataset name for the message.
        layout (str): the expected layout, one entry per line.
    """
    if not root or not osp.isdir(root):
        raise DataLayoutError(
            f'{dataset}: data_root {root!r} is not a directory. Expected:\n'
            f'{layout}')
    missing = [osp.relpath(_within(root, p), root) for p in paths
               if not osp.exists(_within(root, p))]
    if missing:
        raise DataLayoutError(
            f'{dataset}: {root!r} lacks {missing}. Expected:\n{layout}')


def _within(root, path):
    """``path`` as a data set holds it, made a path to the file: absolute,
    already joined to ``root`` (mmengine joins ``data_prefix`` and
    ``ann_file`` to a relative ``data_root`` too, e.g.
    ``data/coco/annotations/...``), or relative to ``root``."""
    if osp.isabs(path):
        return path
    base, joined = osp.normpath(root), osp.normpath(path)
    if joined == base or joined.startswith(base + osp.sep):
        return path
    return osp.join(root, path)
