"""Finds the checkpoint ``--resume`` continues from."""
import glob
import os.path as osp

from .reading import training_progress

__all__ = ['latest_checkpoint']


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
            pointer names another file than the one chosen.

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
    pointer = osp.join(work_dir, 'last_checkpoint')
    if log is not None and osp.isfile(pointer):
        with open(pointer) as f:
            named = f.read().strip()
        if osp.abspath(named) != osp.abspath(chosen):
            log(f'{pointer} names {named or "nothing"!r}; resuming from '
                f'{chosen}, the training checkpoint of this folder that ends '
                f'the latest epoch and iteration ({epoch}, {iteration})')
    return chosen
