"""Keeps PerSampleSeed transforms on the runner's seed and epoch."""
from mmengine.hooks import Hook
from mmengine.registry import HOOKS
from mmengine.runner import EpochBasedTrainLoop

from randsac_mm.datasets.transforms import PerSampleSeed

__all__ = ['PerSampleSeedHook', 'find_transforms', 'run_seed']


def find_transforms(dataset, kind):
    """Every ``kind`` transform in a dataset's pipeline, through mmengine's
    dataset wrappers (``dataset``/``datasets`` attributes)."""
    found = []
    pipeline = getattr(dataset, 'pipeline', None)
    for t in getattr(pipeline, 'transforms', []):
        if isinstance(t, kind):
            found.append(t)
    inner = getattr(dataset, 'datasets', None) or []
    if getattr(dataset, 'dataset', None) is not None:
        inner = list(inner) + [dataset.dataset]
    for d in inner:
        found.extend(find_transforms(d, kind))
    return found


def run_seed(runner):
    """The run's seed, the same in every process.

    With ``randomness.diff_rank_seed=True`` mmengine seeds each process with
    the run's seed plus its rank (``runner.seed``), so that dropout draws
    differ between processes; the per-sample seeds must not, or N
    processes would draw other crops and layouts than one process.
    """
    diff_rank_seed = getattr(runner, '_randomness_cfg', {}).get(
        'diff_rank_seed', False)
    return runner.seed - runner.rank if diff_rank_seed else runner.seed


@HOOKS.register_module()
class PerSampleSeedHook(Hook):
    """Before each training epoch, gives every ``PerSampleSeed`` of the
    training data the run's seed (:func:`run_seed`: the same on every rank)
    and the epoch number.

    Runs before the epoch's dataloader iterator starts (and so before any
    worker loads a sample of that epoch). Needs an epoch-based loop: an
    iteration-based loop's infinite sampler has no epochs to key on.
    """

    priority = 'VERY_HIGH'

    def before_train(self, runner):
        self._transforms = find_transforms(runner.train_dataloader.dataset,
                                           PerSampleSeed)
        if self._transforms and not isinstance(runner.train_loop,
                                               EpochBasedTrainLoop):
            raise TypeError(
                'PerSampleSeedHook keys layouts on the epoch: train_cfg must '
                "be epoch-based (type='EpochBasedTrainLoop'), got "
                f'{type(runner.train_loop).__name__}')

    def before_train_epoch(self, runner):
        for t in self._transforms:
            t.set_epoch(runner.epoch, seed=run_seed(runner))
