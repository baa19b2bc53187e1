"""Stops training at the first non-finite loss, before it is checkpointed."""
import math

from mmengine.hooks import Hook
from mmengine.registry import HOOKS

__all__ = ['NonFiniteLossHook']


@HOOKS.register_module()
class NonFiniteLossHook(Hook):
    """Raises ``FloatingPointError`` when the training loss is NaN or inf.

    It runs after each training iteration with a priority above mmengine's
    CheckpointHook, so the iteration that diverged is never saved and the
    last checkpoint on disk is the last good one. The message names the
    iteration, the loss value and that checkpoint (the one ``--resume``
    takes), or says that none was written yet. Registered in mmengine's
    root registry: usable from the mmpretrain, mmseg and mmdet scopes.
    """

    priority = 'ABOVE_NORMAL'

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None):
        if not outputs or 'loss' not in outputs:
            return
        loss = outputs['loss']
        # Read without autograd: float() of a tensor that requires grad
        # warns (and would copy a graph-attached value).
        value = float(loss.detach() if hasattr(loss, 'detach') else loss)
        if math.isfinite(value):
            return
        from ...checkpoint.latest import latest_checkpoint
        last = latest_checkpoint(runner.work_dir)
        check = 'Check the learning rate, the data and mixed precision'
        raise FloatingPointError(
            f'non-finite training loss {value} at iteration {runner.iter + 1}'
            f' (epoch {runner.epoch + 1}); training stopped before saving. ' +
            (f'Last good checkpoint: {last}. {check}, then resume from it '
             'with --resume.' if last else
             f'No checkpoint was written yet. {check}, then start the run '
             'again.'))
