"""Carries the global random generators through a checkpoint and resume."""
import random

import numpy as np
import torch
from mmengine.hooks import Hook
from mmengine.registry import HOOKS
from mmengine.runner import IterBasedTrainLoop
from torch.utils.data import DataLoader

from .per_sample_seed_hook import diff_rank_seed

__all__ = ['RandomStateHook', 'capture_random_states',
           'restore_random_states']


def capture_random_states():
    """The states of Python's, numpy's and torch's global generators (and
    the current CUDA device's, once CUDA is in use), as plain Python values
    and a CPU tensor: what a checkpoint loads under ``weights_only=True``."""
    kind, key, pos, has_gauss, gauss = np.random.get_state()
    states = dict(python=random.getstate(),
                  numpy=(kind, key.tolist(), pos, has_gauss, gauss),
                  torch=torch.get_rng_state())
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        states['cuda'] = torch.cuda.get_rng_state()
    return states


def restore_random_states(states):
    """Sets the generators to what :func:`capture_random_states` returned."""
    random.setstate(states['python'])
    kind, key, pos, has_gauss, gauss = states['numpy']
    np.random.set_state((kind, np.asarray(key, dtype=np.uint32), pos,
                         has_gauss, gauss))
    # A resume maps the checkpoint to the GPU; the setters take CPU bytes.
    torch.set_rng_state(states['torch'].cpu())
    if 'cuda' in states and torch.cuda.is_available():
        torch.cuda.set_rng_state(states['cuda'].cpu())


@HOOKS.register_module()
class RandomStateHook(Hook):
    """Saves the global random generators in each checkpoint; a run resumed
    from that checkpoint continues them instead of reseeding.

    Without it, ``--resume`` reseeds the generators from the run seed, so
    what draws from them after a resume differs from the uninterrupted
    run: MAE's random masks, dropout and drop path, mixup. (The crops and
    segment layouts of a ``PerSampleSeed`` pipeline do not draw from them.)

    The states are those of the process that writes the checkpoint (rank
    0). They are restored on every rank when each rank's generators follow
    the same stream as rank 0's: one process, or N processes seeded alike
    (mmengine's default, ``randomness.diff_rank_seed=False``). Otherwise,
    and when the process count changed, the run is reseeded as without the
    hook, and the log says so. Registered in mmengine's root registry:
    usable from the mmpretrain, mmseg and mmdet scopes.

    Exact where nothing draws between the checkpoint and the next training
    iteration in one run and not the other. Creating a data loader's
    iterator draws once from torch's CPU generator: the resumed run creates
    a persistent loader's first iterator before the restore, which matches
    an uninterrupted run that created it before the checkpoint; a
    validation between the checkpoint and the next training iteration that
    creates its iterator (each one with a non-persistent loader, the first
    with a persistent one) is one draw the resumed run does not make.
    DeepSpeed's strategy calls no checkpoint hook: there the hook does
    nothing.
    """

    priority = 'VERY_HIGH'

    def __init__(self):
        self._loaded = None

    def before_save_checkpoint(self, runner, checkpoint):
        meta = checkpoint.setdefault('meta', {})
        # meta['iter'] is where a run resumed from this checkpoint starts:
        # runner.iter in an epoch-based loop, runner.iter + 1 in an
        # iteration-based one (saved before the loop counts the iteration).
        meta['random_states'] = dict(
            iter=meta.get('iter', runner.iter), world_size=runner.world_size,
            states=capture_random_states())

    def after_load_checkpoint(self, runner, checkpoint):
        # Called by both resume and load_from; before_train tells them
        # apart: only a resumed run continues at the saved iteration.
        self._loaded = checkpoint.get('meta', {}).get('random_states')

    def before_train(self, runner):
        saved, self._loaded = self._loaded, None
        if saved is None or runner.iter == 0 or saved['iter'] != runner.iter:
            return
        per_rank = diff_rank_seed(runner)
        if saved['world_size'] != runner.world_size or (
                runner.world_size > 1 and per_rank):
            runner.logger.warning(
                'RandomStateHook: the checkpoint holds the random state of '
                f"rank 0 of {saved['world_size']} processes; this run has "
                f'{runner.world_size} (diff_rank_seed={per_rank}), so '
                'its generators restart from the seed instead')
            return
        _start_persistent_iterators(runner)
        restore_random_states(saved['states'])
        runner.logger.info('RandomStateHook: random generators continue '
                           f"from iteration {saved['iter']}")


def _start_persistent_iterators(runner):
    """Creates the iterators of the training and validation loaders that
    keep their workers, as the uninterrupted run did in its first epoch:
    the draw that creation makes then precedes the restored states.

    The training loader of an iteration-based loop is left alone: the loop
    made its iterator when it was built, before ``before_train``, and a
    second ``iter`` would reset it, closing its sampler's iterator;
    mmengine's ``InfiniteSampler`` yields from one generator made at
    construction, so that reset would leave the loop no more batches
    (StopIteration while it skips those already trained on)."""
    loops = [runner.val_loop]
    if not isinstance(runner.train_loop, IterBasedTrainLoop):
        loops.append(runner.train_loop)
    for loop in loops:
        loader = getattr(loop, 'dataloader', None)
        if isinstance(loader, DataLoader) and loader.persistent_workers \
                and loader.num_workers > 0:
            iter(loader)
