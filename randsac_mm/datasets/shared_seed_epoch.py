"""The run's seed and epoch, shared with dataloader workers."""
import multiprocessing
from multiprocessing.context import get_spawning_popen

__all__ = ['SharedSeedEpoch']


class SharedSeedEpoch:
    """A run's seed and current epoch in shared memory: set in the main
    process before each epoch (``PerSampleSeedHook``), read by dataloader
    workers, forked or spawned, persistent or not. What keys every random
    draw of the data on (seed, epoch, sample index).

    Args:
        seed (int): the run seed until the hook sets the runner's.
    """

    def __init__(self, seed=0):
        self._values = multiprocessing.RawArray('q', [int(seed), 0])

    def set_epoch(self, epoch, seed=None):
        self._values[1] = int(epoch)
        if seed is not None:
            self._values[0] = int(seed)

    @property
    def seed(self):
        return int(self._values[0])

    @property
    def epoch(self):
        return int(self._values[1])

    def __getstate__(self):
        # Sent to a spawned worker, the shared memory itself travels; any
        # other pickle or deepcopy carries a plain copy of the values.
        if get_spawning_popen() is None:
            return list(self._values)
        return self._values

    def __setstate__(self, values):
        self._values = multiprocessing.RawArray('q', values) \
            if isinstance(values, list) else values
