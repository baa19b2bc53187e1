"""A checkpoint hook after whose every step a whole checkpoint remains."""
import glob
import os
import os.path as osp
from collections import deque

from mmengine.dist import is_main_process
from mmengine.hooks import CheckpointHook
from mmengine.registry import HOOKS

from ...checkpoint.atomic_local_backend import (
    ATOMIC_LOCAL,
    AtomicLocalBackend,
    is_temporary_file,
)

__all__ = ['AtomicCheckpointHook']

# The message hub's key for the checkpoints a save removes once it is
# written (a checkpoint names those it supersedes).
_SUPERSEDED = 'superseded_ckpt_ids'


@HOOKS.register_module()
class AtomicCheckpointHook(CheckpointHook):
    """mmengine's ``CheckpointHook`` in an order a kill cannot break.

    mmengine removes the oldest kept checkpoint *before* it writes the new
    one, so with ``max_keep_ckpts=1`` a kill while saving leaves no
    checkpoint at all, and ``last_checkpoint`` naming a deleted file. Here
    each save:

    1. writes the new checkpoint whole (a temporary file renamed over it:
       the ``atomic_local`` backend, this hook's default);
    2. points ``last_checkpoint`` at it, also atomically;
    3. only then removes the checkpoints beyond ``max_keep_ckpts``.

    A kill at any moment leaves the previous checkpoint, or the new one, or
    both, whole; ``--resume`` picks by what each holds
    (``randsac_mm.checkpoint.latest``). When the next run in the folder
    starts, it removes what the kill left, and says so: a hidden
    ``.<name>.*.tmp`` of step 1, and, resumed from the new checkpoint, the
    old ones step 3 did not reach (the new checkpoint names them).
    ``max_keep_ckpts`` counts as in mmengine; only its moment changes.
    Registered in mmengine's root registry: the mmpretrain, mmseg and mmdet
    scopes all find it.

    Args:
        backend_args (dict | None): mmengine's file backend arguments;
            None: ``dict(backend='atomic_local')``.
        The other arguments are ``CheckpointHook``'s.
    """

    def __init__(self, *args, backend_args=None, **kwargs):
        super().__init__(
            *args, backend_args=backend_args or dict(backend=ATOMIC_LOCAL),
            **kwargs)

    def before_train(self, runner):
        super().before_train(runner)  # sets out_dir
        if is_main_process():
            self._remove_temporary_files(runner)
            self._remove(runner, runner.message_hub.get_info(
                _SUPERSEDED, []), 'superseded by the checkpoint resumed from')

    def _remove_temporary_files(self, runner):
        """The temporary files a save killed mid-write left in the folders
        this hook writes to, removed, one line in the log."""
        folders = {runner.work_dir, self.out_dir}
        leftovers = sorted(
            path for folder in folders
            for path in glob.glob(osp.join(glob.escape(folder), '.*.tmp'))
            if is_temporary_file(path))
        for path in leftovers:
            os.remove(path)
        if leftovers:
            runner.logger.warning(
                f'removed {len(leftovers)} temporary file(s) of a save that '
                'did not finish (the run before was killed while saving): '
                + ', '.join(osp.basename(p) for p in leftovers))

    def _remove(self, runner, steps, why=None):
        """Removes the checkpoints of ``steps`` that exist; one line in the
        log saying ``why``, if given, when any did."""
        removed = []
        for step in steps:
            path = self.file_backend.join_path(
                self.out_dir, self.filename_tmpl.format(step))
            if self.file_backend.isfile(path):
                self.file_backend.remove(path)
            elif self.file_backend.isdir(path):  # DeepSpeed's: a folder
                self.file_backend.rmtree(path)
            else:
                continue
            removed.append(osp.basename(path))
        if removed and why:
            runner.logger.warning(f'removed {", ".join(removed)}: {why} '
                                  '(the run before was killed while saving)')

    def _save_checkpoint_with_step(self, runner, step, meta):
        stale = self._kept_after(runner, step)
        filename = self.filename_tmpl.format(step)
        self.last_ckpt = self.file_backend.join_path(self.out_dir, filename)
        runner.message_hub.update_info('last_ckpt', self.last_ckpt)
        runner.save_checkpoint(
            self.out_dir, filename, self.file_client_args,
            save_optimizer=self.save_optimizer,
            save_param_scheduler=self.save_param_scheduler, meta=meta,
            by_epoch=self.by_epoch, backend_args=self.backend_args,
            **self.args)
        # Sharded strategies gather on every rank; the files are rank 0's.
        if not is_main_process():
            return
        AtomicLocalBackend().put_text(
            self.last_ckpt, osp.join(runner.work_dir, 'last_checkpoint'))
        self._remove(runner, stale)

    def _kept_after(self, runner, step):
        """Adds ``step`` to the checkpoints kept and returns the steps it
        pushes out, to remove once it is written. Both go in the message
        hub, so that the new checkpoint holds them: a run resumed from it
        keeps the same files, and removes those a kill spared."""
        stale = []
        if self.max_keep_ckpts > 0 and not (
                self.keep_ckpt_ids and self.keep_ckpt_ids[-1] == step):
            # (The same step twice: saved again for a new best score.)
            steps = list(self.keep_ckpt_ids) + [step]
            stale = steps[:-self.max_keep_ckpts]
            self.keep_ckpt_ids = deque(steps[-self.max_keep_ckpts:],
                                       self.max_keep_ckpts)
            runner.message_hub.update_info('keep_ckpt_ids',
                                           list(self.keep_ckpt_ids))
        runner.message_hub.update_info(_SUPERSEDED, stale)
        return stale
