"""Finds the checkpoint ``--resume`` continues from."""
import glob
import os.path as osp

from .reading import training_progress

__all__ = ['dangling_pointer', 'latest_checkpoint', 'named_by_pointer']


def latest_checkpoint(work_dir, log=None):
    """The training checkpoint of ``work_dir`` that ends the latest (epoch,
    iteration), as recorded inside it; None when the folder has none.

    What a checkpoint is decides, not where a pointer points or when a file
    was written:

    - mmengine's ``last_checkpoint`` pointer is written after the
      checkpoint, so a run killed in between leaves it naming the one
      before; and a copied work dir's pointer names the original folder's
      file.
    - File times change when a file is touched or copied.
    - A ``*.pth`` without a training state (an encoder written by
      ``tools/model_converters``, an export) is never a candidate
      (``reading.training_progress``).

    Only the folder's own ``*.pth`` files are candidates; every one is
    complete, as checkpoints are written atomically (temporary files are
    hidden ``.*.tmp``).

    Args:
        work_dir (str): the run's folder.
        log (Callable[[str], None] | None): told, in one line, when the
            pointer names another file than the one chosen, or a file that
            does not exist.

    Returns:
        str | None: the checkpoint's path.
    """
    found = []
    for path in sorted(glob.glob(osp.join(work_dir, '*.pth'))):
        progress = training_progress(path) if osp.isfile(path) else None
        if progress is not None:
            found.append((progress, path))
    if not found:
        return None
    (epoch, iteration), chosen = max(found)
    named = named_by_pointer(work_dir)
    if log is not None and named is not None and \
            osp.abspath(named) != osp.abspath(chosen):
        log(f'{osp.join(work_dir, "last_checkpoint")} names '
            f'{named or "nothing"!r}'
            f'{", which does not exist" if dangling_pointer(work_dir) else ""}'
            f'; resuming from {chosen}, the training checkpoint of this '
            'folder that ends the latest epoch and iteration '
            f'({epoch}, {iteration})')
    return chosen


def named_by_pointer(work_dir):
    """What mmengine's ``last_checkpoint`` pointer of ``work_dir`` names
    ('' for an empty one), or None without a pointer."""
    pointer = osp.join(work_dir, 'last_checkpoint')
    if not osp.isfile(pointer):
        return None
    with open(pointer) as f:
        return f.read().strip()


def dangling_pointer(work_dir):
    """What ``last_checkpoint`` names when that file does not exist (a save
    cut short by mmengine's own CheckpointHook, which removes the old
    checkpoint first), else None."""
    named = named_by_pointer(work_dir)
    return named if named and not osp.exists(named) else None
