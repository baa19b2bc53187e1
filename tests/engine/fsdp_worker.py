"""One process of tests/engine/test_fsdp.py (run by torchrun, gloo).

Trains the same tiny RandSAC twice from the same initial weights, once
under mmengine's DDP wrapper and once under its FSDP wrapper with the
ViT-L FSDP config's wrap policy (one unit per transformer layer), two
steps each on this rank's own layouts, and writes each step's logged loss
(averaged over the processes, as the configs' ``MeanLogsOverProcessesHook``
logs it) and the final weights' checksum to OUT/rank<R>.json.
"""
import json
import os
import sys

import torch
import torch.distributed as dist
from mmengine.config import Config
from mmengine.model import MMDistributedDataParallel
from mmengine.optim import OptimWrapper
from mmengine.registry import MODEL_WRAPPERS
from torch.distributed.fsdp import FullyShardedDataParallel

import randsac_mm.registration  # noqa: F401  (registers)
from randsac_mm.engine import MeanLogsOverProcessesHook
from tests.models.helpers import LAYOUT_KINDS, build_model, layouts, samples

FSDP_CONFIG = 'configs/pretrain/randsac_vit-large-p16_square-16to4_' \
    '16xb256-amp-fsdp-1600e_in1k.py'


def batch(rank, step):
    ranks = layouts([LAYOUT_KINDS['hier_blob']] * 3, seed=10 * rank + step)
    torch.manual_seed(100 * rank + step)
    return dict(inputs=[torch.randn(3, 3, 32, 32)],
                data_samples=samples(ranks))


def train(wrapper, rank):
    optim = OptimWrapper(torch.optim.AdamW(wrapper.parameters(), lr=1e-2))
    losses = []
    for step in range(2):
        log = wrapper.train_step(batch(rank, step), optim)
        # What the configs' hook does before the loss is logged.
        MeanLogsOverProcessesHook().after_train_iter(None, step, None, log)
        losses.append(float(log['loss']))
    return losses


def main(out):
    dist.init_process_group('gloo')
    rank = dist.get_rank()
    ddp = MMDistributedDataParallel(module=build_model('skip').train(),
                                    device_ids=None)
    policy = Config.fromfile(FSDP_CONFIG).strategy.model_wrapper
    fsdp = MODEL_WRAPPERS.build(dict(
        type='MMFullyShardedDataParallel', module=build_model('skip').train(),
        device_id=torch.device('cpu'), **policy))
    units = sum(isinstance(m, FullyShardedDataParallel)
                for m in fsdp.modules())
    result = dict(ddp=train(ddp, rank), fsdp=train(fsdp, rank), units=units)
    with fsdp.summon_full_params(fsdp):
        result['fsdp_weights'] = {
            n.replace('_fsdp_wrapped_module.', ''): float(p.double().sum())
            for n, p in fsdp.module.named_parameters()}
    result['ddp_weights'] = {n: float(p.double().sum())
                             for n, p in ddp.module.named_parameters()}
    with open(os.path.join(out, f'rank{rank}.json'), 'w') as f:
        json.dump(result, f)
    dist.destroy_process_group()


if __name__ == '__main__':
    main(sys.argv[1])
