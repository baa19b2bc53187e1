"""SharedSeedEpoch: the run's seed and epoch in memory that a spawned
dataloader worker shares, and that any other copy carries as values."""
import copy
import multiprocessing

from randsac_mm.datasets.shared_seed_epoch import SharedSeedEpoch


def _set_in_worker(seed_epoch):
    seed_epoch.set_epoch(5, seed=9)


def test_a_spawned_worker_shares_the_memory():
    seed_epoch = SharedSeedEpoch(seed=3)
    worker = multiprocessing.get_context('spawn').Process(
        target=_set_in_worker, args=(seed_epoch, ))
    worker.start()
    worker.join(timeout=120)
    assert worker.exitcode == 0
    assert (seed_epoch.seed, seed_epoch.epoch) == (9, 5)


def test_a_copy_carries_the_values_not_the_memory():
    seed_epoch = SharedSeedEpoch(seed=3)
    twin = copy.deepcopy(seed_epoch)
    seed_epoch.set_epoch(4, seed=7)
    assert (seed_epoch.seed, seed_epoch.epoch) == (7, 4)
    assert (twin.seed, twin.epoch) == (3, 0)
