"""Lets mmengine's ``--launcher pytorch`` path run on the CPU (``--device
cpu``: the tests' multi-process runs).

mmengine 0.10.7 always calls ``torch.cuda.set_device`` when it initialises
the process group and wraps the model in DDP with
``device_ids=[LOCAL_RANK]``; both fail on a CPU. Here the process group is
started with gloo first (mmengine then skips its own initialisation) and DDP
gets ``device_ids=None``. The tools call it only for ``--device cpu``: a GPU
node whose CUDA does not start is refused (``randsac_mm._cli.device``), not
switched to gloo.
"""
import atexit
import os

import torch
import torch.distributed as dist

__all__ = ['prepare_cpu_distributed']


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
                           "call randsac_mm._cli.device.use_device('cpu') "
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


def _destroy_process_group():
    if dist.is_initialized():
        dist.destroy_process_group()
