"""A checkpoint hook after whose every step a whole checkpoint remains."""
import glob
import os
import os.path as osp

from mmengine.dist import is_main_process
from mmengine.hooks import CheckpointHook
from mmengine.registry import HOOKS

from ...checkpoint.atomic_local_backend import (
    ATOMIC_LOCAL,
    AtomicLocalBackend,
    is_temporary_file,
)

__all__ = ['AtomicCheckpointHook']

# The message hub's keys for the steps whose checkpoints are kept (the
# name mmengine's own hook keeps them under) and for those a save removes
# once it is written (a checkpoint names those it supersedes).
_KEPT = 'keep_ckpt_ids'
_SUPERSEDED = 'superseded_ckpt_ids'


@HOOKS.register_module()
class AtomicCheckpointHook(CheckpointHook):
    """mmengine's ``CheckpointHook`` in an order a kill cannot break.

    mmengine removes the oldest kept checkpoint *before* it writes the new
    one, so with ``max_keep_ckpts=1`` a kill while saving leaves no
    checkpoint at all, and ``last_checkpoint`` naming a deleted file. This
    hook lets mmengine's hook save and keep every file (it is given
    ``max_keep_ckpts=-1``), and around each of its saves:

    1. the new checkpoint is written whole (a temporary file renamed over
       it: the ``atomic_local`` backend, this hook's default);
    2. ``last_checkpoint`` is pointed at it again, atomically (mmengine
       writes it in place; ``--resume`` does not trust it anyway:
       ``randsac_mm.checkpoint.latest``);
    3. only then are the checkpoints beyond ``max_keep_ckpts`` removed.

    A kill at any moment leaves the previous checkpoint, or the new one, or
    both, whole; ``--resume`` picks by what each holds. When the next run
    in the folder starts, it removes what the kill left, and says so: a
    hidden ``.<name>.*.tmp`` of step 1, and, resumed from the new
    checkpoint, the old ones step 3 did not reach (the new checkpoint names
    them: the kept steps are in the message hub before it is written).
    ``max_keep_ckpts`` counts as in mmengine, a best score's save of the
    latest step included; only its moment changes. It uses mmengine's
    public hook methods and attributes, and the message hub's ``last_ckpt``
    and ``keep_ckpt_ids`` (the keys mmengine's own hook keeps them under,
    which a checkpoint carries). Registered in mmengine's
    root registry: the mmpretrain, mmseg and mmdet scopes all find it.

    Args:
        max_keep_ckpts (int): the latest so many checkpoints are kept;
            <= 0: all.
        backend_args (dict | None): mmengine's file backend arguments;
            None: ``dict(backend='atomic_local')``.
        The other arguments are ``CheckpointHook``'s.
    """

    def __init__(self, *args, max_keep_ckpts=-1, backend_args=None,
                 **kwargs):
        super().__init__(
            *args, max_keep_ckpts=-1,
            backend_args=backend_args or dict(backend=ATOMIC_LOCAL),
            **kwargs)
        self.checkpoints_kept = max_keep_ckpts
        self.kept_steps = []

    def before_train(self, runner):
        super().before_train(runner)  # sets out_dir and file_backend
        # A resumed run keeps the files the checkpoint it resumed kept.
        self.kept_steps = list(runner.message_hub.get_info(_KEPT, []))
        if is_main_process():
            self._remove_temporary_files(runner)
            self._remove(runner, runner.message_hub.get_info(
                _SUPERSEDED, []), 'superseded by the checkpoint resumed from')

    def after_train_epoch(self, runner):
        self._around_save(runner, runner.epoch + 1,
                          lambda: super(AtomicCheckpointHook,
                                        self).after_train_epoch(runner))

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None):
        self._around_save(runner, runner.iter + 1,
                          lambda: super(AtomicCheckpointHook,
                                        self).after_train_iter(
                              runner, batch_idx, data_batch, outputs))

    def after_val_epoch(self, runner, metrics):
        # A new best score makes mmengine save the latest step again
        # (under its step's name, a new file when that step was not a
        # checkpoint yet): kept and pruned as the others.
        step = runner.epoch if self.by_epoch else runner.iter
        self._around_save(runner, step,
                          lambda: super(AtomicCheckpointHook,
                                        self).after_val_epoch(runner,
                                                              metrics))

    def save_now(self, runner):
        """Saves the iteration just ended (an iteration-based run stopped
        between two of its checkpoints: ``PreemptionHook``), unless this
        hook saved it already; returns the checkpoint's path."""
        step = runner.iter + 1
        name = self.filename_tmpl.format(step)
        if self.last_ckpt and osp.basename(self.last_ckpt) == name:
            return self.last_ckpt

        def save():
            self.last_ckpt = self.file_backend.join_path(self.out_dir, name)
            runner.message_hub.update_info('last_ckpt', self.last_ckpt)
            runner.save_checkpoint(
                self.out_dir, name, self.file_client_args,
                save_optimizer=self.save_optimizer,
                save_param_scheduler=self.save_param_scheduler,
                by_epoch=False, backend_args=self.backend_args, **self.args)
        self._around_save(runner, step, save)
        return self.last_ckpt

    def _around_save(self, runner, step, save):
        """Runs ``save`` (mmengine's decision whether to save at ``step``,
        and the save), with the kept steps as they are once ``step`` is
        saved in the message hub, so that the checkpoint holds them; then,
        if it saved, points ``last_checkpoint`` at it and removes the
        checkpoints it pushes out."""
        hub = runner.message_hub
        before = hub.get_info('last_ckpt')
        kept, stale = self._kept_with(step)
        hub.update_info(_KEPT, kept)
        hub.update_info(_SUPERSEDED, stale)
        save()
        if hub.get_info('last_ckpt') == before:  # nothing saved
            hub.update_info(_KEPT, self.kept_steps)
            hub.update_info(_SUPERSEDED, [])
            return
        self.kept_steps = kept
        # Sharded strategies gather on every rank; the files are rank 0's.
        if is_main_process():
            AtomicLocalBackend().put_text(
                hub.get_info('last_ckpt'),
                osp.join(runner.work_dir, 'last_checkpoint'))
            self._remove(runner, stale)

    def _kept_with(self, step):
        """(the steps kept once ``step`` is saved, those it pushes out)."""
        if self.kept_steps and self.kept_steps[-1] == step:
            return self.kept_steps, []  # saved again (a new best score)
        steps = self.kept_steps + [step]
        if self.checkpoints_kept <= 0:
            return steps, []
        return (steps[-self.checkpoints_kept:],
                steps[:-self.checkpoints_kept])

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
