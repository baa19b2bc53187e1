"""Keeps what keys the training data's random draws (PerSampleSeed steps,
InMemoryBatchImages data sets) on the runner's seed and epoch."""
from mmengine.hooks import Hook
from mmengine.registry import HOOKS
from mmengine.runner import EpochBasedTrainLoop

from randsac_mm.datasets.batch import InMemoryBatchImages
from randsac_mm.datasets.transforms import PerSampleSeed

__all__ = ['PerSampleSeedHook', 'find_transforms', 'find_epoch_keyed',
           'diff_rank_seed', 'run_seed']


def _datasets(dataset):
    """The data set and those inside it, through mmengine's dataset
    wrappers (``dataset``/``datasets`` attributes)."""
    yield dataset
    inner = list(getattr(dataset, 'datasets', None) or [])
    if getattr(dataset, 'dataset', None) is not None:
        inner.append(dataset.dataset)
    for d in inner:
        yield from _datasets(d)


def find_transforms(dataset, kind):
    """Every ``kind`` transform in the pipelines of a data set and of those
    inside it."""
    return [t for d in _datasets(dataset)
            for t in getattr(getattr(d, 'pipeline', None), 'transforms', [])
            if isinstance(t, kind)]


def find_epoch_keyed(dataset):
    """What keys the data's random draws on (run seed, epoch, sample):
    ``PerSampleSeed`` steps and ``InMemoryBatchImages`` data sets."""
    return find_transforms(dataset, PerSampleSeed) + [
        d for d in _datasets(dataset) if isinstance(d, InMemoryBatchImages)]


def run_seed(runner):
    """The run's seed, the same in every process.

    With ``randomness.diff_rank_seed=True`` mmengine seeds each process with
    the run's seed plus its rank (``runner.seed``), so that dropout draws
    differ between processes; the per-sample seeds must not, or N
    processes would draw other crops and layouts than one process.
    """
    return runner.seed - runner.rank if diff_rank_seed(runner) \
        else runner.seed


def diff_rank_seed(runner):
    """Whether the run's config seeds each process with its rank added
    (``randomness.diff_rank_seed``; the runner's config, as
    ``Runner.from_cfg`` keeps it)."""
    return bool((runner.cfg.get('randomness') or {}).get('diff_rank_seed'))


@HOOKS.register_module()
class PerSampleSeedHook(Hook):
    """Before each training epoch, gives every ``PerSampleSeed`` and
    ``InMemoryBatchImages`` of the training data (:func:`find_epoch_keyed`)
    the run's seed (:func:`run_seed`: the same on every rank) and the
    epoch number.

    Runs before the epoch's dataloader iterator starts (and so before any
    worker loads a sample of that epoch). Needs an epoch-based loop: an
    iteration-based loop's infinite sampler has no epochs to key on.
    """

    priority = 'VERY_HIGH'

    def before_train(self, runner):
        self._keyed = find_epoch_keyed(runner.train_dataloader.dataset)
        if self._keyed and not isinstance(runner.train_loop,
                                          EpochBasedTrainLoop):
            raise TypeError(
                'PerSampleSeedHook keys layouts on the epoch: train_cfg must '
                "be epoch-based (type='EpochBasedTrainLoop'), got "
                f'{type(runner.train_loop).__name__}')

    def before_train_epoch(self, runner):
        for keyed in self._keyed:
            keyed.set_epoch(runner.epoch, seed=run_seed(runner))
