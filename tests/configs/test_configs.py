"""Every config parses and builds; every pretraining config trains one
iteration on tiny data in its real on-disk format; every evaluation config
loads a checkpoint written by a pretraining config."""
import copy
import os.path as osp
import re

import pytest
import torch
from mmengine.config import Config
from mmengine.registry import init_default_scope
from mmengine.runner import Runner
from mmpretrain.registry import MODELS, TRANSFORMS

import randsac_mm  # noqa: F401

from .shrink import (ALL_CONFIGS, CONFIG_DIR, EVAL_CONFIGS, PRETRAIN_CONFIGS,
                     is_large, localise, name, shrink_model)

init_default_scope('mmpretrain')
pytestmark = pytest.mark.heavy


@pytest.mark.parametrize('path', ALL_CONFIGS, ids=name)
def test_config_builds_model_and_pipeline(path):
    cfg = Config.fromfile(path)
    assert cfg.default_scope == 'mmpretrain'
    assert 'randsac_mm' in cfg.custom_imports['imports']
    model_cfg = copy.deepcopy(cfg.model)
    model_cfg['backbone'].pop('init_cfg', None)
    shrink_model(model_cfg)
    model = MODELS.build(model_cfg)
    assert sum(p.numel() for p in model.parameters()) > 0
    pipeline = [TRANSFORMS.build(t)
                for t in cfg.train_dataloader.dataset.pipeline]
    assert type(pipeline[-1]).__name__ == 'PackInputs'
    header = open(path).read().splitlines()[0]
    assert header.startswith('#')


def test_every_paper_table_has_configs():
    text = '\n'.join(open(p).read() for p in PRETRAIN_CONFIGS)
    for table in ['Tokenization', 'Serialization', 'Square size',
                  'Segments', 'Segment Coherence',
                  'Hierarchical Segment Prediction', 'Patch-random',
                  'Performance of Architectures', 'Low-data pre-training',
                  'Comparison on ImageNet-1K']:
        assert f'"{table}' in text or f'Table "{table}' in text, table


@pytest.fixture(scope='module')
def pretrained_checkpoints(data_roots, tmp_path_factory):
    """Runs every pretraining config for one iteration; returns the
    checkpoint of each (keyed by config path)."""
    out = {}
    for path in PRETRAIN_CONFIGS:
        cfg = Config.fromfile(path)
        shrink_model(cfg.model)
        work_dir = tmp_path_factory.mktemp(osp.basename(path)[:40])
        localise(cfg, data_roots, work_dir)
        cfg.experiment_name = osp.basename(path)
        runner = Runner.from_cfg(cfg)
        runner.train()
        loss = runner.message_hub.get_scalar('train/loss').current()
        out[path] = (osp.join(work_dir, 'epoch_1.pth'), loss, cfg.model)
    return out


@pytest.mark.parametrize('path', PRETRAIN_CONFIGS, ids=name)
def test_pretraining_config_trains_one_iteration(path, pretrained_checkpoints):
    checkpoint, loss, _ = pretrained_checkpoints[path]
    assert osp.isfile(checkpoint)
    assert torch.isfinite(torch.tensor(loss)) and loss > 0


def matching_pretrain(eval_path, pretrained_checkpoints):
    """A pretraining config with the evaluation config's backbone."""
    eval_model = Config.fromfile(eval_path).model['backbone']
    arch = eval_model['arch']
    want = (arch['embed_dims'] if isinstance(arch, dict) else 768,
            eval_model['patch_size'])
    for path, (checkpoint, _, model) in sorted(pretrained_checkpoints.items()):
        backbone = Config.fromfile(path).model['backbone']
        arch = backbone['arch']
        dims = arch['embed_dims'] if isinstance(arch, dict) else 768
        if (dims, backbone['patch_size']) == want and \
                backbone['type'] == 'RandSACViT' and \
                is_large(backbone) == is_large(eval_model):
            return path, checkpoint
    raise LookupError(f'no pretraining config matches {eval_path}')


@pytest.mark.parametrize('path', EVAL_CONFIGS, ids=name)
def test_eval_config_loads_pretraining_checkpoint_and_trains(
        path, pretrained_checkpoints, data_roots, tmp_path):
    pretrain_path, checkpoint = matching_pretrain(path,
                                                  pretrained_checkpoints)
    cfg = Config.fromfile(path)
    shrink_model(cfg.model)
    cfg.model.backbone.init_cfg.checkpoint = checkpoint
    model = MODELS.build(copy.deepcopy(cfg.model))
    model.init_weights()
    pretrained = torch.load(checkpoint)['state_dict']
    for key, value in model.backbone.state_dict().items():
        source = pretrained['backbone.' + key]
        if key == 'pos_embed' and source.shape != value.shape:
            continue  # interpolated to the evaluation resolution
        assert torch.equal(value, source), (name(pretrain_path), key)
    # ... and one training iteration through the Runner.
    localise(cfg, data_roots, tmp_path)
    cfg.experiment_name = osp.basename(path)
    runner = Runner.from_cfg(cfg)
    runner.train()
    assert osp.isfile(tmp_path / 'epoch_1.pth')


def test_eval_config_without_checkpoint_says_how_to_pass_it():
    from randsac_mm.models.utils.pretrained import PretrainedCheckpointError
    cfg = Config.fromfile(EVAL_CONFIGS[0])
    shrink_model(cfg.model)
    with pytest.raises(PretrainedCheckpointError, match=re.escape(
            'model.backbone.init_cfg.checkpoint=')):
        MODELS.build(cfg.model).init_weights()


def test_main_config_is_the_paper_recipe():
    cfg = Config.fromfile(osp.join(CONFIG_DIR, 'randsac_vit-b_in1k.py'))
    pipeline = cfg.train_dataloader.dataset.pipeline
    assert pipeline[0].type == 'PerSampleSeed'
    gen = pipeline[4]
    assert (gen.input_size, gen.patch_size, gen.segment, gen.square_size,
            tuple(gen.hierarchy)) == (192, 16, 'square', 3, (4, ))
    assert cfg.model.neck.num_layers == 8 and cfg.model.neck.embed_dims == 768
    assert cfg.model.head.norm_pix
    opt = cfg.optim_wrapper.optimizer
    assert opt.lr == pytest.approx(2e-4 * 4096 / 256)
    assert tuple(opt.betas) == (0.9, 0.95) and opt.weight_decay == 0.05
    assert cfg.train_dataloader.batch_size * 8 == \
        cfg.auto_scale_lr.base_batch_size == 4096
    assert cfg.train_cfg.max_epochs == 1600
    assert cfg.param_scheduler[0].end == 40
    crop = pipeline[2]
    assert tuple(crop.crop_ratio_range) == (0.2, 1.0)


@pytest.mark.parametrize('path', PRETRAIN_CONFIGS, ids=name)
def test_pretraining_runs_are_reproducible_and_checkpoints_atomic(path):
    """Crops and layouts are keyed on the sample (PerSampleSeed first, its
    hook on), and checkpoints go through the atomic backend."""
    cfg = Config.fromfile(path)
    assert cfg.train_dataloader.dataset.pipeline[0].type == 'PerSampleSeed'
    hooks = [h.type for h in cfg.custom_hooks]
    assert 'PerSampleSeedHook' in hooks and 'NonFiniteLossHook' in hooks
    assert cfg.train_cfg.type == 'EpochBasedTrainLoop'
    assert cfg.default_hooks.checkpoint.backend_args == dict(
        backend='atomic_local')
