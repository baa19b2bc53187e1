"""Bad input to configs and data roots, one row per case, end to end.

Each row edits a real config the way a user's typo would and runs it
through mmengine's Runner (or, for data roots, through the Runner's own
dataloader build). Every row must fail with a message naming the argument
and what is allowed, before the first training iteration.
"""
import copy
import os.path as osp
import re
import shutil

import pytest
import torch
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmengine.runner import Runner

import randsac_mm.registration  # noqa: F401
from randsac_mm.checkpoint.loading import PretrainedCheckpointError
from randsac_mm.segments.config import GRID_KEYS

from . import data_factory
from .conftest import REPO_ROOT

CONFIGS = osp.join(REPO_ROOT, 'configs')
PRETRAIN = osp.join(CONFIGS, 'demo',
                    'randsac_vit-mini-p4_square-16to4_digits.py')
LINEAR = osp.join(CONFIGS, 'demo', 'vit-mini-p4_linear_digits.py')


def generator_step(cfg):
    return next(t for t in cfg.train_dataloader.dataset.pipeline
                if t['type'] == 'RandSACSegmentGenerator')


def set_generator(**kwargs):
    return lambda cfg, tmp: generator_step(cfg).update(kwargs)


def set_layout(**layout):
    """Replaces the layout of the generator step, keeping its token grid
    (the demo's square options would not apply to another scheme)."""
    def edit(cfg, tmp):
        step = generator_step(cfg)
        grid = {key: step[key] for key in ('type', ) + GRID_KEYS}
        step.clear()
        step.update(grid, **layout)
    return edit


def set_model(path, value):
    def edit(cfg, tmp):
        node = cfg.model
        *parents, last = path.split('.')
        for key in parents:
            node = node[key]
        node[last] = value
    return edit


def run_until_first_iteration(cfg, tmp_path):
    """Builds the runner and starts training; returns the exception, and
    checks that no iteration ran."""
    cfg.work_dir = str(tmp_path / 'work')
    cfg.train_cfg.max_epochs = 1
    cfg.train_dataloader.dataset.indices = 16
    cfg.train_dataloader.batch_size = 8
    runner = None
    try:
        runner = Runner.from_cfg(cfg)
        runner.train()
    except Exception as e:  # noqa: BLE001  (the row's error)
        if runner is not None:  # no loss was ever logged
            assert 'train/loss' not in runner.message_hub.log_scalars, \
                'the error came after a training iteration'
        return e
    pytest.fail('training started without an error')


PRETRAIN_ROWS = {
    'unknown segment type': (
        set_generator(segment='hexagon'), ValueError,
        r"segment must be one of \('patch', 'square', 'blob'\), got "
        "'hexagon'"),
    'M not dividing the grid': (
        set_generator(square_size=3), ValueError,
        r'square_size \(M\) must divide .* allowed \[1, 2, 4\], got 3'),
    'K out of range': (
        set_layout(segment='blob', num_segments=65), ValueError,
        r'num_segments \(K\) must be an int in \[2, 64\]'),
    'option of another scheme': (
        set_generator(num_segments=9), ValueError,
        r"segment='square' has no option num_segments; its options: "
        'square_size, hierarchy'),
    'hierarchy that does not coarsen': (
        set_generator(hierarchy=(16, )), ValueError,
        r'hierarchy \(16,\) does not coarsen: level 1 has 16 groups, '
        r'allowed 2\.\.15'),
    'image size not divisible by the patch size (pipeline)': (
        set_generator(input_size=30), ValueError,
        'input_size 30x30 must be divisible by patch_size 4: allowed sides '
        'are positive multiples of 4'),
    'image size not divisible by the patch size (model)': (
        set_model('backbone.img_size', 30), ValueError,
        'img_size 30 must be divisible by patch_size 4'),
    'decoder with zero layers': (
        set_model('neck.num_layers', 0), ValueError,
        r'num_layers \(decoder depth\) must be an int >= 1, got 0'),
}


@pytest.mark.parametrize('row', list(PRETRAIN_ROWS))
def test_pretraining_config_row(row, tmp_path):
    edit, error, message = PRETRAIN_ROWS[row]
    cfg = Config.fromfile(PRETRAIN)
    edit(cfg, tmp_path)
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        e = run_until_first_iteration(cfg, tmp_path)
    assert isinstance(e, error), repr(e)
    assert re.search(message, str(e)), str(e)


def pretrained_encoder(tmp_path):
    """The state dict of the demo pretraining model, freshly built."""
    from mmpretrain.registry import MODELS
    cfg = Config.fromfile(PRETRAIN)
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        model = MODELS.build(cfg.model)
    return model.state_dict()


def write_checkpoint(tmp_path, kind):
    path = tmp_path / f'{kind}.pth'
    state = pretrained_encoder(tmp_path)
    if kind == 'no encoder keys':
        state = {k: v for k, v in state.items()
                 if not k.startswith('backbone.')}
        torch.save(dict(state_dict=state), path)
    elif kind == 'other architecture':
        state = {k: torch.zeros(*v.shape[:-1], v.shape[-1] * 2)
                 if k.startswith('backbone.') and v.dim() else v
                 for k, v in state.items()}
        torch.save(dict(state_dict=state), path)
    elif kind == 'corrupted file':
        torch.save(dict(state_dict=state), path)
        data = path.read_bytes()
        path.write_bytes(data[:len(data) // 2])  # a truncated copy
    return path


CHECKPOINT_ROWS = {
    'no encoder keys': r"has no encoder keys starting with 'backbone\.'",
    'other architecture': r'does not fit the backbone: 76 have another '
                          r'shape \(patch_embed\.projection\.weight '
                          r'\(128, 3, 4, 8\) vs \(128, 3, 4, 4\)',
    'corrupted file': r'could not be read|corrupted|not a checkpoint',
}


@pytest.mark.parametrize('row', list(CHECKPOINT_ROWS))
def test_checkpoint_row(row, tmp_path):
    path = write_checkpoint(tmp_path, row)
    cfg = Config.fromfile(LINEAR)
    cfg.model.backbone.init_cfg = dict(type='Pretrained', checkpoint=str(path),
                                       prefix='backbone.')
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        e = run_until_first_iteration(cfg, tmp_path)
    assert isinstance(e, PretrainedCheckpointError), repr(e)
    assert str(path) in str(e)
    assert re.search(CHECKPOINT_ROWS[row], str(e)), str(e)


# (config, scope, writer of a valid root, how to break it, expected text)
DATA_CONFIGS = {
    'CIFAR-10': (
        'pretrain/randsac_vit-tiny-p4_square-m2_8xb64-amp-800e_cifar10.py',
        'mmpretrain', data_factory.write_cifar,
        'cifar-10-batches-py/data_batch_2', 'cifar-10-batches-py/'),
    'ImageNet-1K': ('randsac_vit-b_in1k.py', 'mmpretrain',
                    data_factory.write_imagenet, 'train',
                    '{train,val}/<wnid>/'),
    'ImageNet-100': (
        'pretrain/randsac_vit-small-p16_blob-16to4_8xb512-amp-800e_in100.py',
        'mmpretrain', data_factory.write_imagenet100, 'train',
        '{train,val}/<wnid>/'),
    'own images': (
        'pretrain/'
        'randsac_vit-base-p16_square-16to4_8xb512-amp-1600e_own-images.py',
        'mmpretrain', data_factory.write_unlabeled, '.',
        dict(missing='a folder holding images',
             malformed="no images ending in ('.jpg', '.jpeg', '.png'")),
    'ADE20K': (
        'segmentation/upernet_randsac-vit-b_8xb2-160k_ade20k-512x512.py',
        'mmseg', data_factory.write_ade20k, 'annotations/training',
        'annotations/{training,validation}/ADE_*.png'),
    'COCO': ('detection/mask-rcnn_randsac-vit-b_fpn_coco.py', 'mmdet',
             data_factory.write_coco, 'annotations/instances_train2017.json',
             'annotations/instances_{train,val}2017.json'),
}


def build_train_data(config, scope, root):
    cfg = Config.fromfile(osp.join(CONFIGS, config))
    loader = copy.deepcopy(cfg.train_dataloader)
    loader.dataset.data_root = str(root)
    loader.num_workers = 0
    loader.pop('persistent_workers', None)
    with DefaultScope.overwrite_default_scope(scope):
        return Runner.build_dataloader(loader)


@pytest.mark.parametrize('name', list(DATA_CONFIGS))
@pytest.mark.parametrize('state', ['missing', 'malformed'])
def test_data_root_row(name, state, tmp_path):
    from randsac_mm.datasets import DataLayoutError
    config, scope, write, remove, expected = DATA_CONFIGS[name]
    root = tmp_path / 'root'
    if state == 'malformed':
        write(str(root))
        broken = root / remove
        if broken.is_dir():
            if remove == '.':  # an image folder without images
                shutil.rmtree(root)
                root.mkdir()
                (root / 'readme.txt').write_text('no images')
            else:
                shutil.rmtree(broken)
        else:
            broken.unlink()
    with pytest.raises(DataLayoutError) as info:
        build_train_data(config, scope, root)
    message = str(info.value)
    if isinstance(expected, dict):
        expected = expected[state]
    assert expected in message and str(root) in message, message


def test_valid_roots_build(tmp_path):
    """The rows above fail because of the break, not because the configs
    cannot read a valid root."""
    for name in ('CIFAR-10', 'ADE20K', 'COCO'):
        config, scope, write, _, _ = DATA_CONFIGS[name]
        root = tmp_path / name
        write(str(root))
        assert len(build_train_data(config, scope, root).dataset) > 0
