"""Every config parses and builds; every pretraining config trains one
iteration on tiny data in its real on-disk format; every evaluation config
loads a checkpoint written by a pretraining config."""
import copy
import json
import os
import os.path as osp
import re

import pytest
import torch
from mmengine.config import Config
from mmengine.registry import init_default_scope
from mmengine.runner import Runner
from mmpretrain.registry import MODELS, TRANSFORMS

import randsac_mm.registration  # noqa: F401
from randsac_mm.analysis.paper import PAPER_RESULTS, load_metafile

from .shrink import (
    ALL_CONFIGS,
    CONFIG_DIR,
    EVAL_CONFIGS,
    PRETRAIN_CONFIGS,
    SUPERVISED_CONFIGS,
    localise,
    name,
    shrink_model,
)

init_default_scope('mmpretrain')
pytestmark = pytest.mark.heavy


@pytest.mark.parametrize('path', ALL_CONFIGS, ids=name)
def test_config_builds_model_and_pipeline(path):
    cfg = Config.fromfile(path)
    assert cfg.default_scope == 'mmpretrain'
    assert 'randsac_mm.registration' in cfg.custom_imports['imports']
    # The text mmengine logs, dumps and stores in checkpoints parses back
    # (tests/conftest.py skips only its yapf formatting).
    assert Config.fromstring(cfg.pretty_text, '.py').model == cfg.model
    model_cfg = copy.deepcopy(cfg.model)
    model_cfg['backbone'].pop('init_cfg', None)
    shrink_model(model_cfg)
    model = MODELS.build(model_cfg)
    assert sum(p.numel() for p in model.parameters()) > 0
    dataset = cfg.train_dataloader.dataset
    if dataset.type == 'InMemoryBatchImages':  # the batch path's steps
        TRANSFORMS.build(dict(dataset.crop, type='RandomResizedCrop'))
        if dataset.layout is not None:
            TRANSFORMS.build(dict(dataset.layout,
                                  type='RandSACSegmentGenerator'))
        assert cfg.data_preprocessor.type == 'BatchCropDataPreprocessor'
    else:
        pipeline = [TRANSFORMS.build(t) for t in dataset.pipeline]
        assert type(pipeline[-1]).__name__ == 'PackInputs'
    header = open(path).read().splitlines()[0]
    assert header.startswith('#')


def test_every_paper_table_has_configs():
    """Every results table of the paper has its figures in
    configs/metafile.yml, for configs that exist and cite the table and
    row (tests/configs/test_config_style.py checks both)."""
    models = load_metafile()['Models']
    tables = {result['Paper']['Table'] for model in models
              for result in model[PAPER_RESULTS] or []}
    assert tables == {
        'Tokenization', 'Serialization', 'Square size', 'Segments',
        'Segment Coherence', 'Hierarchical Segment Prediction',
        'Patch-random tokenization as a function of P',
        'Performance of Architectures',
        'FLOPs of Three Candidate Architectures',
        'Low-data pre-training on CIFAR 10 and 100',
        'Comparison on ImageNet-1K', 'Semantic Segmentation on ADE20K',
        'Object Detection on COCO'}
    pretraining = {osp.relpath(p, osp.dirname(CONFIG_DIR))
                   for p in PRETRAIN_CONFIGS}
    assert {m['Config'] for m in models
            if m[PAPER_RESULTS]} - pretraining == {
        'configs/supervised/vit-small-p4_8xb128-coslr-100e_cifar10.py',
        'configs/supervised/vit-small-p4_8xb128-coslr-100e_cifar100.py',
        'configs/segmentation/upernet_randsac-vit-b_8xb2-160k_ade20k-512x512.py',
        'configs/detection/mask-rcnn_randsac-vit-b_fpn_coco.py'}


def test_the_model_index_holds_no_result_this_code_did_not_measure():
    """mim and model zoos read a model's ``Results`` as what it measured:
    no weights are released, so no model has them; the paper's figures
    are under ``Paper Results``."""
    models = load_metafile()['Models']
    assert [m['Name'] for m in models if 'Results' in m] == []
    assert sum(bool(m.get(PAPER_RESULTS)) for m in models) > 50


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


GOLDEN_LOSSES = osp.join(osp.dirname(__file__), 'golden_losses.json')


def test_pretraining_losses_equal_the_recorded_ones(pretrained_checkpoints):
    """Refactoring configs or models changes no run: the first-iteration
    loss of every pretraining config (tiny data, seed 0, the shrunk model
    where large) equals the value recorded before. A new config is
    recorded with RANDSAC_RECORD_GOLDEN=1; a changed value is a bug unless
    the change was meant to alter training."""
    losses = {name(path): loss
              for path, (_, loss, _) in pretrained_checkpoints.items()}
    if os.environ.get('RANDSAC_RECORD_GOLDEN') == '1':
        with open(GOLDEN_LOSSES, 'w') as f:
            json.dump(losses, f, indent=1, sort_keys=True)
            f.write('\n')
    with open(GOLDEN_LOSSES) as f:
        golden = json.load(f)
    assert sorted(golden) == sorted(losses), 'record new configs'
    differ = {key: (golden[key], loss) for key, loss in losses.items()
              if abs(loss - golden[key]) > 1e-6 * max(1.0, abs(golden[key]))}
    assert not differ, f'(recorded, now): {differ}'


# Evaluated by tools/analysis/eval_frozen.py, which builds the encoder from
# the pretraining config itself (no evaluation config of matching shape).
FROZEN_EVALUATED = ('small_scale/', 'paper_scale/',
                    'demo/randsac_vit-mini-p4_square-16to4_mnist',
                    # the small transfer study's readout and initialisations
                    'demo/randsac_vit-mini-p4_patch-random_mnist',
                    'demo/mae_vit-mini-p4_mnist')


def eval_configs(path):
    """{'linear': path, 'finetune': path} a pretraining config names."""
    named = Config.fromfile(path).get('eval_configs') or {}
    return {kind: osp.join(osp.dirname(CONFIG_DIR), p)
            for kind, p in named.items()}


def test_every_pretraining_config_has_its_evaluation():
    named = set()
    for path in PRETRAIN_CONFIGS:
        configs = eval_configs(path)
        if name(path).startswith(FROZEN_EVALUATED):
            assert not configs, name(path)
            continue
        assert sorted(configs) == ['finetune', 'linear'], name(path)
        assert all(osp.isfile(p) for p in configs.values()), configs
        named.update(configs.values())
    demo_evals = {p for p in ALL_CONFIGS if '/demo/vit-' in p and
                  ('linear' in p or 'finetune' in p)}
    assert named >= set(EVAL_CONFIGS) | demo_evals


def load_into(eval_path, checkpoint):
    """The evaluation config's model (shrunk like the pretraining one),
    initialised from ``checkpoint`` through its Pretrained init_cfg."""
    cfg = Config.fromfile(eval_path)
    shrink_model(cfg.model)
    cfg.model.backbone.init_cfg.checkpoint = checkpoint
    model = MODELS.build(copy.deepcopy(cfg.model))
    model.init_weights()
    return cfg, model


@pytest.mark.parametrize(
    'path', [p for p in PRETRAIN_CONFIGS
             if not name(p).startswith(FROZEN_EVALUATED)], ids=name)
def test_checkpoint_loads_whole_into_its_evaluation_models(
        path, pretrained_checkpoints):
    """Every encoder weight of the checkpoint lands in the evaluation
    backbone (the loader refuses missing and unexpected keys; only a
    two-stream checkpoint's query_token is declared unused)."""
    checkpoint = pretrained_checkpoints[path][0]
    pretrained = torch.load(checkpoint)['state_dict']
    encoder = {k[len('backbone.'):]: v for k, v in pretrained.items()
               if k.startswith('backbone.')}
    for eval_path in eval_configs(path).values():
        cfg, model = load_into(eval_path, checkpoint)
        loaded = model.backbone.state_dict()
        unused = set(cfg.model.backbone.get('unused_checkpoint_keys', ()))
        assert unused <= {'query_token'}
        assert set(encoder) - set(loaded) == unused
        for key, value in loaded.items():
            if key == 'pos_embed' and encoder[key].shape != value.shape:
                continue  # interpolated to the evaluation resolution
            assert torch.equal(value, encoder[key]), (name(eval_path), key)


def test_frozen_evaluated_checkpoints_load_whole_into_their_model(
        pretrained_checkpoints):
    from randsac_mm.apis import build_model
    for path, (checkpoint, _, _) in pretrained_checkpoints.items():
        if name(path).startswith(FROZEN_EVALUATED):
            cfg = Config.fromfile(path)
            shrink_model(cfg.model)
            build_model(cfg, checkpoint)  # strict: every key, no other


@pytest.mark.parametrize('path', EVAL_CONFIGS, ids=name)
def test_eval_config_trains_one_iteration_from_a_checkpoint(
        path, pretrained_checkpoints, data_roots, tmp_path):
    pretrain_path = next(p for p in PRETRAIN_CONFIGS
                         if path in eval_configs(p).values())
    checkpoint = pretrained_checkpoints[pretrain_path][0]
    cfg, _ = load_into(path, checkpoint)
    localise(cfg, data_roots, tmp_path)
    cfg.experiment_name = osp.basename(path)
    runner = Runner.from_cfg(cfg)
    runner.train()
    assert osp.isfile(tmp_path / 'epoch_1.pth')


@pytest.mark.parametrize('path', SUPERVISED_CONFIGS, ids=name)
def test_supervised_config_trains_one_iteration_from_scratch(
        path, data_roots, tmp_path):
    """Table "Low-data pre-training"'s supervised row: no checkpoint, no
    layer decay, its own validation data."""
    cfg = Config.fromfile(path)
    assert 'Pretrained' not in str(cfg.model.backbone.init_cfg)
    assert cfg.optim_wrapper.paramwise_cfg.layer_decay_rate == 1.0
    assert cfg.val_dataloader.dataset.split == 'test'
    shrink_model(cfg.model)
    model = MODELS.build(copy.deepcopy(cfg.model))
    model.init_weights()  # no checkpoint to load, nothing refused
    position = model.backbone.pos_embed
    assert position.requires_grad and 0.015 < position.std() < 0.025
    localise(cfg, data_roots, tmp_path)
    cfg.experiment_name = osp.basename(path)
    runner = Runner.from_cfg(cfg)
    runner.train()
    loss = runner.message_hub.get_scalar('train/loss').current()
    assert torch.isfinite(torch.tensor(loss)) and loss > 0


@pytest.mark.parametrize('eval_path, unexpected', [
    ('benchmarks/linear/vit-tiny-p4_8xb2048-linear-coslr-90e_cifar10.py',
     '(layers.12-14.*, query_token)'),
    ('benchmarks/linear/vit-tiny-p4-two-stream_8xb2048-linear-coslr-90e_'
     'cifar10.py', None),
])
def test_deeper_or_two_stream_checkpoint_is_refused_naming_its_config(
        eval_path, unexpected, pretrained_checkpoints):
    from randsac_mm.checkpoint import PretrainedCheckpointError
    two_stream = osp.join(
        CONFIG_DIR, 'pretrain',
        'randsac_vit-tiny-p4_blob-11to5_two-stream_8xb64-amp-1600e_cifar10.py')
    checkpoint = pretrained_checkpoints[two_stream][0]
    if unexpected is None:  # its own evaluation config takes it
        load_into(osp.join(CONFIG_DIR, eval_path), checkpoint)
        return
    with pytest.raises(PretrainedCheckpointError) as error:
        load_into(osp.join(CONFIG_DIR, eval_path), checkpoint)
    message = str(error.value)
    assert unexpected in message
    assert 'vit-tiny-p4-two-stream_8xb2048-linear-coslr-90e_cifar10.py' \
        in message


def test_pyramid_refuses_a_two_stream_checkpoint(pretrained_checkpoints):
    from randsac_mm.checkpoint import PretrainedCheckpointError
    from randsac_mm.downstream import RandSACViTPyramid
    two_stream = osp.join(
        CONFIG_DIR, 'pretrain',
        'randsac_vit-tiny-p4_blob-11to5_two-stream_8xb64-amp-1600e_cifar10.py')
    pyramid = RandSACViTPyramid(
        arch=dict(embed_dims=192, num_layers=12, num_heads=3,
                  feedforward_channels=768), img_size=32, patch_size=4,
        init_cfg=dict(type='Pretrained', prefix='backbone.',
                      checkpoint=pretrained_checkpoints[two_stream][0]))
    with pytest.raises(PretrainedCheckpointError,
                       match=r'the backbone lacks \(layers\.12-14\.\*, '
                       r'query_token\)'):
        pyramid.init_weights()


def test_eval_config_without_checkpoint_says_how_to_pass_it():
    from randsac_mm.checkpoint import PretrainedCheckpointError
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


@pytest.mark.parametrize(
    'path',
    [p for p in PRETRAIN_CONFIGS if name(p).startswith('paper_scale/')],
    ids=name)
def test_paper_scale_rows_are_the_appendix_recipe(path):
    """Paper Table "CIFAR10 Pre-training setting" on one GPU: ViT-T/4 with
    a 3-layer decoder, AdamW at base_lr 1e-3 for batch 512, betas (0.9,
    0.999), weight decay 0.05, 10 warmup epochs then cosine, the paper's
    crop and flip, bf16 on CUDA; on the batch data path. Normalised pixel
    targets for the rows of Table "Performance of Architectures" (and
    MAE's own), raw pixels for the tokenization to hierarchy tables."""
    cfg = Config.fromfile(path)
    header = open(path).read().split('_base_')[0]
    normalised = '"Performance of Architectures"' in header or \
        cfg.model.type == 'MAEMatchedToRandSAC'
    assert cfg.model.head.norm_pix == normalised
    backbone = cfg.model.backbone
    assert (backbone.img_size, backbone.patch_size) == (32, 4)
    if backbone.type == 'RandSACViT':
        assert backbone.arch == 'deit-tiny' and cfg.model.neck.num_layers == 3
    else:  # two-stream: the encoder's 12 layers and the decoder's 3
        assert backbone.arch.num_layers == 15
    opt = cfg.optim_wrapper
    assert opt.type == 'AutocastOptimWrapper' and opt.dtype == 'bfloat16'
    assert opt.optimizer.lr == pytest.approx(1e-3 * 512 / 256)
    assert tuple(opt.optimizer.betas) == (0.9, 0.999)
    assert opt.optimizer.weight_decay == 0.05
    loader = cfg.train_dataloader
    assert loader.batch_size == cfg.auto_scale_lr.base_batch_size == 512
    warmup, cosine = cfg.param_scheduler
    assert (warmup.type, warmup.end) == ('LinearLR', 10)
    assert (cosine.type, cosine.end) == ('CosineAnnealingLR',
                                         cfg.train_cfg.max_epochs)
    assert cfg.train_cfg.max_epochs >= 200
    dataset = loader.dataset
    assert dataset.type == 'InMemoryBatchImages'
    assert tuple(dataset.crop.crop_ratio_range) == (0.2, 1.0)
    assert dataset.flip_prob == 0.5


@pytest.mark.parametrize('path', PRETRAIN_CONFIGS, ids=name)
def test_pretraining_runs_are_reproducible_and_checkpoints_atomic(path):
    """Crops and layouts are keyed on the sample (PerSampleSeed first, or
    the batch path's data set; the hook on) and the global generators
    survive a resume (checkpoints: the test below)."""
    cfg = Config.fromfile(path)
    dataset = cfg.train_dataloader.dataset
    # The batch path keys its draws itself (docs/guarantees.md).
    assert dataset.type == 'InMemoryBatchImages' or \
        dataset.pipeline[0].type == 'PerSampleSeed'
    hooks = {h.type for h in cfg.custom_hooks}
    assert {'PerSampleSeedHook', 'NonFiniteLossHook',
            'RandomStateHook'} <= hooks
    assert cfg.train_cfg.type == 'EpochBasedTrainLoop'


def test_a_paper_scale_row_trains_on_cifar10_with_the_base_swapped(
        data_roots, tmp_path):
    """docs/paper_scale.md: a row runs on CIFAR-10 when its experiment
    base lists configs/_base_/datasets/cifar10_randsac_batch.py in place
    of Fashion-MNIST's; the row's layout and model apply as they are."""
    rows = osp.join(CONFIG_DIR, 'paper_scale')
    base = open(osp.join(rows, '_base_',
                         'randsac_vit-tiny-p4_fashion-mnist.py')).read()
    swapped = base.replace('fashion-mnist_randsac_batch.py',
                           'cifar10_randsac_batch.py')
    assert swapped != base
    (tmp_path / '_base_').mkdir()
    (tmp_path / '_base_' / 'randsac_vit-tiny-p4_fashion-mnist.py').write_text(
        swapped.replace("'../../_base_/", f"'{CONFIG_DIR}/_base_/"))
    row = 'randsac_vit-tiny-p4_square-m2-16to4_1xb512-200e_fashion-mnist.py'
    (tmp_path / row).write_text(open(osp.join(rows, row)).read())
    cfg = Config.fromfile(str(tmp_path / row))
    held = cfg.train_dataloader.dataset
    assert held.dataset.type == 'CheckedCIFAR10'
    assert held.layout == Config.fromfile(
        osp.join(rows, row)).train_dataloader.dataset.layout
    assert cfg.data_preprocessor.mean == Config.fromfile(osp.join(
        CONFIG_DIR, '_base_', 'normalisation', 'cifar10.py')).cifar10_mean
    localise(cfg, data_roots, tmp_path / 'work')
    runner = Runner.from_cfg(cfg)
    runner.train()
    loss = runner.message_hub.get_scalar('train/loss').current()
    assert torch.isfinite(torch.tensor(loss)) and loss > 0
