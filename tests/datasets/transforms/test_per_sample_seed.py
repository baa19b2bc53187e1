"""PerSampleSeed: crops and layouts depend on (seed, epoch, sample) only."""
import copy
import pickle

import numpy as np
import pytest
import torch
from mmcv.transforms import Compose
from mmengine.dataset import BaseDataset
from mmengine.registry import init_default_scope

from randsac_mm.datasets.transforms import PerSampleSeed
from randsac_mm.engine import PerSampleSeedHook
from randsac_mm.engine.hooks.per_sample_seed_hook import find_transforms

init_default_scope('mmpretrain')

PIPELINE = [
    dict(type='PerSampleSeed'),
    dict(type='RandomResizedCrop', scale=32, crop_ratio_range=(0.2, 1.0),
         backend='pillow'),
    dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4,
         segment='blob', num_segments=11, hierarchy=(5, )),
]


class Images(BaseDataset):
    """Eight random images; mmengine's BaseDataset adds sample_idx."""

    def load_data_list(self):
        rng = np.random.default_rng(0)
        return [dict(img=rng.integers(0, 255, (40, 40, 3), dtype=np.uint8))
                for _ in range(8)]


def sample(dataset, idx):
    out = dataset[idx]
    return out['img'].tobytes(), out['token_rank'].tobytes()


def test_same_key_same_sample_whatever_came_before():
    data = Images(pipeline=PIPELINE)
    first = [sample(data, i) for i in range(8)]
    np.random.seed(123)  # another process state, other samples drawn first
    again = [sample(data, i) for i in reversed(range(8))][::-1]
    assert first == again
    # Different samples get different crops and layouts.
    assert len({s[1] for s in first}) == 8
    assert len({s[0] for s in first}) == 8


def test_epoch_and_seed_change_every_sample():
    data = Images(pipeline=PIPELINE)
    seeder = data.pipeline.transforms[0]
    before = [sample(data, i) for i in range(8)]
    seeder.set_epoch(1)
    after_epoch = [sample(data, i) for i in range(8)]
    seeder.set_epoch(1, seed=7)
    after_seed = [sample(data, i) for i in range(8)]
    for a, b, c in zip(before, after_epoch, after_seed):
        assert a[1] != b[1] and b[1] != c[1] and a[0] != b[0]


def test_missing_sample_idx_is_a_clear_error():
    with pytest.raises(KeyError, match="PerSampleSeed needs results"):
        Compose(PIPELINE)(dict(img=np.zeros((40, 40, 3), np.uint8)))


def test_copies_keep_values():
    t = PerSampleSeed(seed=5)
    t.set_epoch(3)
    for c in (copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert (c.seed, c.epoch) == (5, 3)
        assert c.sample_seed(2) == t.sample_seed(2)


def test_persistent_workers_see_the_epoch_set_by_the_hook():
    """The hook runs in the main process; persistent dataloader workers
    (forked once) must read the new epoch."""
    data = Images(pipeline=PIPELINE)
    loader = torch.utils.data.DataLoader(
        data, batch_size=8, num_workers=2, persistent_workers=True,
        collate_fn=lambda b: [s['token_rank'].tobytes() for s in b])
    in_main = [sample(data, i)[1] for i in range(8)]

    class Runner:
        seed = 0
        epoch = 0
        cfg = {}  # the run's config: no randomness.diff_rank_seed
        train_dataloader = loader
        train_loop = None

    hook = PerSampleSeedHook()
    hook._keyed = find_transforms(loader.dataset, PerSampleSeed)
    assert len(hook._keyed) == 1
    hook.before_train_epoch(Runner)
    epoch0 = next(iter(loader))
    Runner.epoch = 1
    hook.before_train_epoch(Runner)
    epoch1 = next(iter(loader))
    assert epoch0 == in_main  # workers compute what the main process does
    assert all(a != b for a, b in zip(epoch0, epoch1))
    data.pipeline.transforms[0].set_epoch(1)
    assert epoch1 == [sample(data, i)[1] for i in range(8)]
    # Stop the persistent workers now (left to garbage collection, their
    # join times out seconds later, inside the next test).
    loader._iterator._shutdown_workers()


def test_hook_refuses_iteration_based_loops():
    from mmengine.runner import IterBasedTrainLoop

    class Loop(IterBasedTrainLoop):
        def __init__(self):
            pass

    class Runner:
        train_dataloader = torch.utils.data.DataLoader(
            Images(pipeline=PIPELINE))
        train_loop = Loop()

    with pytest.raises(TypeError, match='epoch-based'):
        PerSampleSeedHook().before_train(Runner)
