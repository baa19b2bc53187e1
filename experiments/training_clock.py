"""How long a run has trained over all its starts.

A run stopped and resumed (a sitting's end, a cluster's preemption) is
timed by each start alone: the time of the starts before is in no
process. The clock keeps the sum in mmengine's message hub, which every
checkpoint saves and a resumed run restores, so the last start knows the
whole: the wall time of the iterations its weights went through (time a
process was stopped included; iterations trained after the last
checkpoint of a start that was killed, and trained again, counted once).
"""
import time

from mmengine.hooks import Hook

__all__ = ['TrainingClock', 'trained_minutes']

KEY = 'train_seconds'


class TrainingClock(Hook):
    """Keeps ``train_seconds`` (float) in the runner's message hub: the
    seconds of training of the checkpoint resumed from, if any, plus this
    start's, brought up to date after every iteration (a checkpoint saves
    the value of its iteration)."""

    # Before the checkpoint hook, which may save after the same iteration.
    priority = 'VERY_HIGH'

    def before_run(self, runner):
        # Before a checkpoint is resumed: a hub reused under the same name
        # in this process starts from nothing, and a resumed one (or one of
        # a checkpoint made before the clock: none) replaces it.
        runner.message_hub.update_info(KEY, 0.0)

    def before_train(self, runner):
        # The Runner has restored the resumed checkpoint's hub by now.
        self._before = runner.message_hub.get_info(KEY)
        self._start = time.perf_counter()

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None):
        runner.message_hub.update_info(
            KEY, self._before + time.perf_counter() - self._start)


def trained_minutes(runner):
    """The minutes of training the clock gives after ``runner.train()``;
    None for a runner trained without it."""
    seconds = runner.message_hub.get_info(KEY)
    return None if seconds is None else seconds / 60
