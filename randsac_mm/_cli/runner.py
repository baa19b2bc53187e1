"""The runner a training config gets: mmengine's Runner, or its
FlexibleRunner when the config names a ``strategy`` (FSDP, DeepSpeed),
after the strategy is checked against this machine and config."""
import importlib.util

from .errors import UserError

__all__ = ['STRATEGIES', 'build_runner', 'check_strategy']

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


def build_runner(cfg):
    """mmengine's ``Runner`` for a config without ``strategy``, else its
    ``FlexibleRunner`` (after :func:`check_strategy`)."""
    import torch
    from mmengine.runner import FlexibleRunner, Runner
    if cfg.get('strategy') is None:
        return Runner.from_cfg(cfg)
    check_strategy(cfg, torch.cuda.is_available())
    return FlexibleRunner.from_cfg(cfg)
