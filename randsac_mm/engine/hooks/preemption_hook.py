"""A run stopped by the signals a cluster sends ends with one line that
says how to resume it."""
import os.path as osp
import signal
import threading

from mmengine.hooks import Hook
from mmengine.registry import HOOKS
from mmengine.runner import IterBasedTrainLoop

from ...signals import PREEMPTION_SIGNALS, stopped_exit_code

__all__ = ['PreemptionHook']


@HOOKS.register_module()
class PreemptionHook(Hook):
    """Stops training at the end of the iteration in which SIGTERM or
    SIGUSR1 arrived (``randsac_mm.signals``), after one line in the
    console and the run's log naming the signal and the checkpoint to
    resume from; the process then exits with 128 + the signal's number.

    Where the loop resumes exactly from any iteration (an iteration-based
    loop: mmengine skips the batches already seen), the hook first saves a
    checkpoint of that iteration. An epoch-based loop resumes exactly only
    at an epoch's start: the line names the last epoch's checkpoint and
    the epoch a resume restarts (a signal in an epoch's last iteration
    waits for that epoch's checkpoint). Under DDP the processes agree (a
    max over their signals after each iteration), so all stop after the
    same one, wherever the signal came first.

    The signal is only noted when it arrives: stopping inside an
    optimizer step or a checkpoint write would leave neither state whole.
    Registered in mmengine's root registry: the mmpretrain, mmseg and
    mmdet scopes all find it.
    """

    priority = 'LOWEST'  # after the iteration's own checkpoint, if any

    def __init__(self):
        self._received = []
        self._previous = {}
        self._training = False

    def before_train(self, runner):
        self._training = True
        if threading.current_thread() is not threading.main_thread():
            return  # signals reach the main thread only
        for signum in PREEMPTION_SIGNALS:
            self._previous[signum] = signal.signal(signum, self._note)

    def after_train(self, runner):
        self._training = False
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _note(self, signum, frame):
        self._received.append(signum)

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None):
        if not self._by_epoch(runner):
            self._stop_if_signalled(runner, f'at iteration {runner.iter + 1}',
                                    save=True)
        elif batch_idx + 1 < len(runner.train_dataloader):
            # (In an epoch's last iteration: stop after its checkpoint.)
            self._stop_if_signalled(runner, f'in iteration {runner.iter + 1}'
                                    f' (epoch {runner.epoch + 1})')

    def after_train_epoch(self, runner):
        self._stop_if_signalled(runner, f'after epoch {runner.epoch + 1}')

    def after_val_iter(self, runner, batch_idx, data_batch=None,
                       outputs=None):
        if self._training:
            self._stop_if_signalled(runner, 'during validation')

    @staticmethod
    def _by_epoch(runner):
        return not isinstance(runner.train_loop, IterBasedTrainLoop)

    def _agreed_signal(self):
        """The signal to stop on (0: none), the same on every process."""
        received = self._received[0] if self._received else 0
        from mmengine.dist import all_reduce, get_world_size
        if get_world_size() > 1:
            import torch
            agreed = torch.tensor(received)
            all_reduce(agreed, op='max')
            received = int(agreed)
        return received

    def _stop_if_signalled(self, runner, where, save=False):
        """Logs the stop and exits, if a signal came; ``save``: a checkpoint
        of the iteration just ended first (the loop resumes from it)."""
        signum = self._agreed_signal()
        if not signum:
            return
        if save:
            saved = self._save_iteration(runner)
            resume = (f'saved {osp.basename(saved)}; --resume continues '
                      f'from iteration {runner.iter + 2}')
        else:
            resume = self._epoch_resume(runner)
        runner.logger.warning(
            f'stopped by {signal.Signals(signum).name} {where}: {resume}')
        self.after_train(runner)
        raise SystemExit(stopped_exit_code(signum))

    @staticmethod
    def _save_iteration(runner):
        """The checkpoint of the iteration just ended: the checkpoint
        hook's (``AtomicCheckpointHook.save_now``, through
        ``runner.save_checkpoint``), written now unless it wrote it
        already, kept and pruned with the run's others."""
        from .atomic_checkpoint_hook import AtomicCheckpointHook
        hook = next((h for h in runner.hooks
                     if isinstance(h, AtomicCheckpointHook)), None)
        if hook is None:
            raise RuntimeError(
                'PreemptionHook: the run has no AtomicCheckpointHook to save '
                "with; set default_hooks.checkpoint=dict(type='"
                "AtomicCheckpointHook', ...), as the configs' runtime does")
        return hook.save_now(runner)

    @staticmethod
    def _epoch_resume(runner):
        """What ``--resume`` does after a stop in an epoch-based run: the
        checkpoint it takes and the epoch it restarts."""
        from ...checkpoint.latest import latest_checkpoint
        from ...checkpoint.reading import training_progress
        latest = latest_checkpoint(runner.work_dir)
        if latest is None:
            return ('no checkpoint written yet: a new run starts from the '
                    'beginning')
        epoch = training_progress(latest)[0]
        return (f'--resume restarts epoch {epoch + 1} from '
                f'{osp.basename(latest)}')
