"""Logs the training values of the global batch: each averaged over the
processes of a distributed run."""
from mmengine.dist import all_reduce, is_distributed
from mmengine.hooks import Hook
from mmengine.registry import HOOKS

__all__ = ['MeanLogsOverProcessesHook']


@HOOKS.register_module()
class MeanLogsOverProcessesHook(Hook):
    """Averages each logged training value (the loss among them) over the
    processes, so a distributed run logs the loss of its global batch, the
    value one process with that batch logs. mmengine logs the first
    process's own. The loss each process backpropagates is untouched: this
    runs after the step, on the values it returns.

    It runs before every other hook of the iteration (priority 'HIGHEST'):
    before mmengine's ``RuntimeInfoHook`` records the values for the logger,
    and before ``NonFiniteLossHook``, so that every process sees one NaN
    and stops.
    """

    priority = 'HIGHEST'

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None):
        if not outputs or not is_distributed():
            return
        for name, value in outputs.items():
            if hasattr(value, 'detach'):
                value = value.detach().clone()
                all_reduce(value, 'mean')  # in place
                outputs[name] = value
