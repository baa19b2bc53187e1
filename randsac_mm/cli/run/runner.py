"""The runner a config gets: mmengine's Runner, handed the model and data
set the tools' checks built (``BuiltParts``), or its FlexibleRunner when the
config names a ``strategy`` (FSDP, DeepSpeed: they build their own), after
the strategy is checked against this machine and config."""
import copy
import importlib.util
import inspect
import random
from dataclasses import dataclass

from ..errors import UserError

__all__ = ['STRATEGIES', 'BuiltParts', 'build_runner', 'check_strategy',
           'seed_as_the_runner']

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


def seed_as_the_runner(cfg):
    """Seeds the global generators as mmengine's Runner does when it is
    created (``cfg.randomness``; each process's rank counts with
    ``diff_rank_seed``, so its process group must be started first), so
    that a model built now draws what the Runner's own build would."""
    from mmengine.runner import set_random_seed
    set_random_seed(**(cfg.get('randomness') or dict(seed=None)))


def _generator_states():
    import numpy as np
    import torch
    cuda = torch.cuda.is_available() and torch.cuda.is_initialized()
    return (random.getstate(), np.random.get_state(), torch.get_rng_state(),
            torch.cuda.get_rng_state_all() if cuda else None)


def _restore_generators(states):
    import numpy as np
    import torch
    python, numpy_state, cpu, cuda = states
    random.setstate(python)
    np.random.set_state(numpy_state)
    torch.set_rng_state(cpu)
    if cuda is not None:
        torch.cuda.set_rng_state_all(cuda)


@dataclass
class BuiltParts:
    """What a tool's checks built, for the run to use rather than build
    again.

    Attributes:
        model (torch.nn.Module): the config's model (``data_preprocessor``
            merged in), built after :func:`seed_as_the_runner`.
        generators (tuple): the global generators' states right after the
            model was built: the Runner reseeds when it is created and
            these are put back, so initialising the weights and the run
            draw what they draw after the Runner's own build.
        split (str | None): 'train' or 'test': whose loader's data set
            follows.
        dataset (torch.utils.data.Dataset | None): that data set, built.
    """
    model: object
    generators: tuple
    split: str | None = None
    dataset: object = None

    @classmethod
    def build_model(cls, cfg):
        """The config's model, seeded as the Runner seeds, a key no class
        takes refused in one line (``check_model_builds``)."""
        from ..builds import check_model_builds
        seed_as_the_runner(cfg)
        return cls(model=check_model_builds(cfg),
                   generators=_generator_states())

    def build_dataset(self, cfg, split):
        """Builds ``<split>_dataloader``'s data set and reads its first
        item (``check_first_item``), for the run."""
        from ..builds import check_first_item
        self.split, self.dataset = split, check_first_item(cfg, split)


def _runner_arguments(cfg):
    """The Runner's keyword arguments from ``cfg`` (its ``from_cfg``,
    without building from a copy: a built part must stay the same
    object)."""
    from mmengine.runner import Runner
    names = [n for n in inspect.signature(Runner.__init__).parameters
             if n not in ('self', 'cfg')]
    cfg = copy.deepcopy(cfg)
    return dict({n: cfg[n] for n in names if n in cfg}, cfg=cfg)


def build_runner(cfg, built=None):
    """mmengine's ``Runner`` for a config without ``strategy`` (with the
    ``built`` parts when given), else its ``FlexibleRunner`` (after
    :func:`check_strategy`; it builds its own parts, sharded).

    Args:
        cfg (mmengine.Config): the run's config.
        built (BuiltParts | None): what the checks built from ``cfg``.
    """
    import torch
    from mmengine.runner import FlexibleRunner, Runner
    if cfg.get('strategy') is not None:
        check_strategy(cfg, torch.cuda.is_available())
        return FlexibleRunner.from_cfg(cfg)
    if built is None:
        return Runner.from_cfg(cfg)
    arguments = _runner_arguments(cfg)
    arguments['model'] = built.model
    if built.dataset is not None:
        loader = f'{built.split}_dataloader'
        arguments[loader] = dict(arguments[loader], dataset=built.dataset)
    runner = Runner(**arguments)
    _restore_generators(built.generators)
    return runner
