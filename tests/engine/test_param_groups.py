"""The pretraining optimizer has one group per distinct setting, and its
updates are those of mmengine's one group per parameter."""
import torch
from mmengine.config import Config
from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS

import randsac_mm.engine  # noqa: F401  (registers)
from randsac_mm.engine.param_groups import merge_param_groups

from ..conftest import REPO_ROOT
from ..models.helpers import LAYOUT_KINDS, build_model, layouts, samples

SCHEDULE = f'{REPO_ROOT}/configs/_base_/schedules/randsac_adamw.py'


def optim_wrapper(model, constructor):
    cfg = Config.fromfile(SCHEDULE).optim_wrapper
    cfg = dict(cfg, type='OptimWrapper')  # float32 on the CPU either way
    cfg.pop('dtype'), cfg.pop('precision'), cfg.pop('constructor')
    return OPTIM_WRAPPER_CONSTRUCTORS.build(dict(
        type=constructor, optim_wrapper_cfg=cfg,
        paramwise_cfg=cfg.pop('paramwise_cfg')))(model)


def test_merging_keeps_settings_and_parameter_order():
    a, b, c, d = (torch.nn.Parameter(torch.zeros(1)) for _ in range(4))
    groups = [dict(params=[a], weight_decay=0.0),
              dict(params=[b]),
              dict(params=[c], weight_decay=0.0, decay_mult=0.0),
              dict(params=[d], weight_decay=0.0)]
    merged = merge_param_groups(groups)
    assert [[id(p) for p in g['params']] for g in merged] == [
        [id(a), id(d)], [id(b)], [id(c)]]
    assert [{k: v for k, v in g.items() if k != 'params'}
            for g in merged] == [dict(weight_decay=0.0), {},
                                 dict(weight_decay=0.0, decay_mult=0.0)]


def test_three_groups_train_as_one_group_per_parameter():
    """3 steps of AdamW on a tiny RandSAC (skip layer, learned nothing
    else): the same weights, to the bit, as mmengine's constructor gives."""
    models = [build_model('skip').train() for _ in range(2)]
    ours = optim_wrapper(models[0], 'FusedAdamWConstructor')
    theirs = optim_wrapper(models[1], 'DefaultOptimWrapperConstructor')
    trainable = sum(p.requires_grad for p in models[0].parameters())
    assert len(theirs.optimizer.param_groups) == trainable
    decays = [g['weight_decay'] for g in ours.optimizer.param_groups]
    # decay; no decay (norms, biases); no decay by custom key
    # (skip_weights; the sin-cos positional embeddings are frozen).
    assert decays == [0.05, 0.0, 0.0]
    assert ours.optimizer.param_groups[2]['decay_mult'] == 0.0
    assert sum(len(g['params']) for g in ours.optimizer.param_groups) == \
        trainable
    images = torch.randn(3, 3, 32, 32)
    for step in range(3):
        data = samples(layouts([LAYOUT_KINDS['hier_blob']] * 3, seed=step))
        for model, wrapper in zip(models, (ours, theirs)):
            wrapper.update_params(model.loss(images, data)['loss'])
    for (name, p), q in zip(models[0].named_parameters(),
                            models[1].parameters()):
        assert torch.equal(p, q), name
    moved = models[0].backbone.layers[0].attn.qkv.weight
    assert not torch.equal(moved, build_model('skip').backbone.layers[0]
                           .attn.qkv.weight)
