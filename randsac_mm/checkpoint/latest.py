"""Finds the checkpoint ``--resume`` continues from."""
import glob
import os.path as osp

__all__ = ['latest_checkpoint']


def latest_checkpoint(work_dir):
    """The newest complete checkpoint of a work dir, or None.

    mmengine's CheckpointHook records it in ``work_dir/last_checkpoint``,
    written with a plain ``open`` after the checkpoint itself: a run killed
    in between leaves the pointer stale, empty or naming a removed file.
    The pointer is used when it names an existing file; otherwise the
    newest ``*.pth`` by modification time (checkpoints are written
    atomically, so every ``*.pth`` is complete; temporary files are hidden
    ``.*.tmp``).
    """
    pointer = osp.join(work_dir, 'last_checkpoint')
    if osp.isfile(pointer):
        with open(pointer) as f:
            named = f.read().strip()
        if named and osp.isfile(named):
            return named
    candidates = glob.glob(osp.join(work_dir, '*.pth'))
    return max(candidates, key=osp.getmtime) if candidates else None
