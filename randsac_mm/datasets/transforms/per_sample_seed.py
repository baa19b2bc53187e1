"""Seeds the pipeline's randomness from the sample, not from the process."""
import random

import numpy as np
from mmcv.transforms import BaseTransform
from mmpretrain.registry import TRANSFORMS

from ..shared_seed_epoch import SharedSeedEpoch

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

    The run seed and the epoch live in shared memory
    (``SharedSeedEpoch``), set in the main process by ``PerSampleSeedHook``
    before each epoch, so dataloader workers (persistent or not) read
    them. Without the hook they stay at (0, 0), which still gives
    reproducible layouts per sample.

    Required keys: ``sample_idx`` (added by mmengine's ``BaseDataset``).

    Args:
        seed (int): run seed used until the hook sets the runner's.
    """

    def __init__(self, seed=0):
        super().__init__()
        self._seed_epoch = SharedSeedEpoch(seed)

    def set_epoch(self, epoch, seed=None):
        """Called in the main process before an epoch's data is loaded."""
        self._seed_epoch.set_epoch(epoch, seed)

    @property
    def seed(self):
        return self._seed_epoch.seed

    @property
    def epoch(self):
        return self._seed_epoch.epoch

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

    def __repr__(self):
        return f'{self.__class__.__name__}(seed={self.seed})'
