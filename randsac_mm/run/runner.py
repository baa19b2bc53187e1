"""The runner a config gets, made in one place (:func:`build_runner`):
mmengine's Runner, handed the model and data set the preflight built
(:class:`RunnerWithParts`), or its FlexibleRunner when the config names a
``strategy`` (FSDP, DeepSpeed: they build their own); and
:func:`check_strategy`, with which the preflight refuses a strategy this
machine or config cannot honour."""
import contextlib
import importlib.util

from mmengine.runner import FlexibleRunner, Runner

from ..cli.errors import UserError

__all__ = ['STRATEGIES', 'RunnerWithParts', 'build_runner',
           'check_strategy']

# The strategies tools/train.py runs, with what each needs.
STRATEGIES = ('DDPStrategy', 'FSDPStrategy', 'DeepSpeedStrategy')


def check_strategy(cfg, cuda_available):
    """Refuses a ``strategy`` this machine or config cannot honour, naming
    the key and what to change, before any process group or model exists.

    Args:
        cfg (mmengine.Config): the run's config (``launcher`` set).
        cuda_available (bool): whether this machine has CUDA GPUs.
    """
    strategy = cfg.get('strategy')
    if strategy is None:
        return
    kind = strategy.get('type') if isinstance(strategy, dict) else None
    if kind not in STRATEGIES:
        raise ValueError(f'strategy.type: {kind!r} is not supported; '
                         f'allowed: {STRATEGIES}')
    if kind != 'DDPStrategy' and cfg.get('launcher', 'none') == 'none':
        raise ValueError(
            f'strategy {kind} shards the model over processes: launch with '
            'tools/dist_train.sh (--launcher pytorch) or tools/slurm_train.sh'
            ' (--launcher slurm), not a single process')
    if not cuda_available:
        raise UserError(
            f'strategy {kind} needs CUDA GPUs (mmengine\'s FlexibleRunner '
            'gives each process the CUDA device of LOCAL_RANK); on a CPU, '
            'train without strategy (DDP over gloo with --launcher pytorch)')
    wrapper = cfg.get('optim_wrapper', {}).get('type', 'OptimWrapper')
    if kind == 'FSDPStrategy' and wrapper == 'AmpOptimWrapper':
        raise ValueError(
            'optim_wrapper.type AmpOptimWrapper (float16 with a GradScaler) '
            'does not scale sharded gradients: use the pretraining configs\' '
            "AutocastOptimWrapper (bf16) with strategy FSDPStrategy")
    if kind == 'DeepSpeedStrategy':
        if importlib.util.find_spec('deepspeed') is None:
            raise UserError('strategy DeepSpeedStrategy needs the deepspeed '
                            'package: pip install deepspeed')
        if wrapper != 'DeepSpeedOptimWrapper':
            raise ValueError(
                'strategy DeepSpeedStrategy needs optim_wrapper.type '
                f"'DeepSpeedOptimWrapper' (DeepSpeed owns the step), got "
                f'{wrapper!r}')


class RunnerWithParts(Runner):
    """mmengine's Runner handed the model and data set a preflight built
    (:class:`~.preflight.RunParts`): it uses them rather than building
    them, and keeps the global generators as the preflight's seed and
    builds left them (the parts were built right after that seed, as its
    own build would be, so the run draws what it would draw).

    Build it with :meth:`from_parts`.

    Attributes:
        parts (RunParts): what the preflight built (set by
            :meth:`from_parts`).
    """

    parts = None

    def __init__(self, **arguments):
        loader = f'{self.parts.split}_dataloader'
        arguments['model'] = self.parts.model
        arguments[loader] = dict(arguments[loader],
                                 dataset=self.parts.dataset)
        self._kept_generators = False
        super().__init__(**arguments)

    def set_randomness(self, seed, diff_rank_seed=False,
                       deterministic=False):
        """The first call (the Runner's own, while it is made) records the
        preflight's seed (already its rank's, with ``diff_rank_seed``) and
        sets ``deterministic`` as mmengine does, then puts the generators
        back as they were; a later one (a resumed run's seed) reseeds."""
        if self._kept_generators:
            return super().set_randomness(seed, diff_rank_seed,
                                          deterministic)
        self._kept_generators = True
        with generators_kept():
            super().set_randomness(self.parts.seed, False, deterministic)

    @classmethod
    def from_parts(cls, cfg, parts):
        """mmengine's ``Runner.from_cfg(cfg)``, its runner handed
        ``parts``: made by a subclass that holds them (``from_cfg`` makes
        the runner of its class with the config's keys alone)."""
        holder = type(cls.__name__, (cls, ), dict(parts=parts))
        return holder.from_cfg(cfg)


@contextlib.contextmanager
def generators_kept():
    """Puts the global generators back after the block
    (``RandomStateHook``'s capture and restore: Python's, numpy's, torch's
    and, once CUDA is in use, its current device's; before that, torch
    queues a CUDA seed, the preflight's own, which stays)."""
    from ..engine.hooks.random_state_hook import (
        capture_random_states,
        restore_random_states,
    )
    states = capture_random_states()
    yield
    restore_random_states(states)


def build_runner(cfg, parts=None):
    """The one place a run's runner is made, for a config the preflight
    checked: mmengine's ``Runner`` for a config without ``strategy`` (a
    :class:`RunnerWithParts` handed the preflight's ``parts``), else its
    ``FlexibleRunner`` (which builds its own parts, sharded).

    Args:
        cfg (mmengine.Config): the run's config.
        parts (RunParts | None): what ``preflight(cfg, ...)`` built (None
            for a ``strategy``).
    """
    if cfg.get('strategy') is not None:
        return FlexibleRunner.from_cfg(cfg)
    if parts is None:
        return Runner.from_cfg(cfg)
    return RunnerWithParts.from_parts(cfg, parts)
