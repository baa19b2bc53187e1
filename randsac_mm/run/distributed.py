"""Starts a multi-process run's process group before the tools' checks
build the model (so that they seed each process as the Runner will), and
lets mmengine's ``--launcher pytorch`` path run on the CPU (``--device
cpu``: the tests' multi-process runs).

mmengine 0.10.7 always calls ``torch.cuda.set_device`` when it initialises
the process group and wraps the model in DDP with
``device_ids=[LOCAL_RANK]``; both fail on a CPU. Here the process group is
started with gloo first (mmengine then skips its own initialisation) and DDP
gets ``device_ids=None``. The tools call it only for ``--device cpu``: a GPU
node whose CUDA does not start is refused (``randsac_mm.cli.device``), not
switched to gloo.
"""
import atexit
import os

import torch
import torch.distributed as dist

__all__ = ['prepare_cpu_distributed', 'start_process_group']


def prepare_cpu_distributed(cfg, launcher):
    """Adapts ``cfg`` and starts a gloo process group for a multi-process
    run on the CPU (one process: nothing to do).

    Args:
        cfg (mmengine.Config): The run's config, modified in place.
        launcher (str): 'none', 'pytorch' or 'slurm'.

    Returns:
        bool: True when a gloo group was prepared.
    """
    if launcher == 'none':
        return False
    if launcher != 'pytorch':
        raise RuntimeError(
            f'--launcher {launcher} needs CUDA GPUs; with --device cpu use '
            "--launcher pytorch (torchrun) or 'none'")
    if torch.cuda.is_available():
        raise RuntimeError('prepare_cpu_distributed: CUDA GPUs are visible; '
                           "call randsac_mm.cli.device.use_device('cpu') "
                           'first')
    cfg.setdefault('env_cfg', {}).setdefault('dist_cfg', {})
    cfg.env_cfg.dist_cfg['backend'] = 'gloo'
    wrapper = cfg.get('model_wrapper_cfg') or dict(
        type='MMDistributedDataParallel',
        broadcast_buffers=False,
        find_unused_parameters=cfg.get('find_unused_parameters', False))
    wrapper['device_ids'] = None
    cfg.model_wrapper_cfg = wrapper
    if not dist.is_initialized():
        dist.init_process_group(
            backend='gloo',
            rank=int(os.environ['RANK']),
            world_size=int(os.environ['WORLD_SIZE']))
        # Left to interpreter teardown, gloo's threads sometimes abort the
        # process ("terminate called without an active exception") after a
        # finished run; close the group while Python is still up.
        atexit.register(_destroy_process_group)
    return True


def start_process_group(cfg, launcher, device):
    """Starts the process group of a run that mmengine's Runner will make
    (it skips its own start then): before the checks build the model,
    which, seeded with ``diff_rank_seed``, needs this process's rank. A
    ``strategy`` (FlexibleRunner) starts its own, after the checks; one
    process has none.

    Args:
        cfg (mmengine.Config): the run's config (``env_cfg.dist_cfg``;
            adapted in place for the CPU).
        launcher (str): 'none', 'pytorch' or 'slurm'.
        device (str): 'cuda' or 'cpu'.
    """
    if launcher == 'none' or cfg.get('strategy') is not None:
        return
    if device == 'cpu':
        prepare_cpu_distributed(cfg, launcher)
        return
    from mmengine.dist import init_dist, is_distributed
    if not is_distributed():
        init_dist(launcher, **(cfg.get('env_cfg') or {}).get('dist_cfg', {}))


def _destroy_process_group():
    if dist.is_initialized():
        dist.destroy_process_group()
