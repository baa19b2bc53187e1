"""Seeds the pipeline's randomness from the sample, not from the process."""
import multiprocessing
import random
from multiprocessing.context import get_spawning_popen

import numpy as np
from mmcv.transforms import BaseTransform
from mmpretrain.registry import TRANSFORMS

__all__ = ['PerSampleSeed']


@TRANSFORMS.register_module()
class PerSampleSeed(BaseTransform):
    """Reseeds numpy's and Python's global random state for each sample.

    Put it first in a pipeline. Every later random transform (crop, flip,
    ``RandSACSegmentGenerator``'s layout) then draws from a state that
    depends only on (run seed, epoch, dataset index), never on which rank
    or dataloader worker loads the sample, or on how many samples it loaded
    before. Hence:

    - N processes produce, sample for sample, what one process produces
      with the same global batch: the losses agree;
    - a resumed run draws the same crops and layouts as an uninterrupted
      one;
    - samples on different ranks get different layouts (different indices),
      and every epoch gives a sample new ones.

    The run seed and the epoch live in shared memory, set in the main
    process by ``PerSampleSeedHook`` before each epoch, so dataloader
    workers (persistent or not) read them. Without the hook they stay at
    (0, 0), which still gives reproducible layouts per sample.

    Required keys: ``sample_idx`` (added by mmengine's ``BaseDataset``).

    Args:
        seed (int): run seed used until the hook sets the runner's.
    """

    def __init__(self, seed=0):
        super().__init__()
        # [seed, epoch]; shared with forked or spawned dataloader workers.
        self._state = multiprocessing.RawArray('q', [int(seed), 0])

    def set_epoch(self, epoch, seed=None):
        """Called in the main process before an epoch's data is loaded."""
        self._state[1] = int(epoch)
        if seed is not None:
            self._state[0] = int(seed)

    @property
    def seed(self):
        return int(self._state[0])

    @property
    def epoch(self):
        return int(self._state[1])

    def sample_seed(self, sample_idx):
        """32-bit seed of one sample at the current epoch."""
        entropy = [self.seed % 2**63, self.epoch, int(sample_idx)]
        return int(np.random.SeedSequence(entropy).generate_state(1)[0])

    def transform(self, results):
        if 'sample_idx' not in results:
            raise KeyError(
                "PerSampleSeed needs results['sample_idx'] (set by mmengine's "
                'BaseDataset); put it in a dataset pipeline, first')
        seed = self.sample_seed(results['sample_idx'])
        np.random.seed(seed)
        random.seed(seed)
        return results

    def __getstate__(self):
        state = self.__dict__.copy()
        # Sent to a spawned worker, the shared memory itself travels; any
        # other pickle or deepcopy carries a plain copy of the values.
        if get_spawning_popen() is None:
            state['_state'] = list(self._state)
        return state

    def __setstate__(self, state):
        values = state.pop('_state')
        self.__dict__.update(state)
        self._state = multiprocessing.RawArray('q', values) \
            if isinstance(values, list) else values

    def __repr__(self):
        return f'{self.__class__.__name__}(seed={self.seed})'
