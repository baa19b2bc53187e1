"""Checks that a data root has the on-disk layout a dataset expects.

A missing or malformed data root must fail when the dataset is built, with
the expected layout spelled out, not deep inside a dataloader worker.
"""
import os.path as osp

__all__ = ['DataLayoutError', 'require_files', 'IMAGE_EXTENSIONS']

IMAGE_EXTENSIONS = ('.jpg', '.jpeg', '.png', '.webp', '.bmp')


class DataLayoutError(FileNotFoundError):
    """The data root does not have the expected layout."""


def require_files(root, relative_paths, dataset, layout):
    """Raises DataLayoutError naming every missing path and the layout.

    Args:
        root (str): the data root.
        relative_paths (list[str]): paths that must exist under ``root``.
        dataset (str): dataset name for the message.
        layout (str): the expected layout, one entry per line.
    """
    if not root or not osp.isdir(root):
        raise DataLayoutError(
            f'{dataset}: data_root {root!r} is not a directory. Expected:\n'
            f'{layout}')
    missing = [p for p in relative_paths if not osp.exists(osp.join(root, p))]
    if missing:
        raise DataLayoutError(
            f'{dataset}: {root!r} lacks {missing}. Expected:\n{layout}')
