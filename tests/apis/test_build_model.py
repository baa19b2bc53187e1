"""build_model: a config's model as the Runner builds it."""
import os.path as osp

import pytest
import torch
from mmengine.config import Config

from randsac_mm.apis import build_model

from ..conftest import REPO_ROOT

CONFIG = osp.join(REPO_ROOT, 'configs', 'small_scale',
                  'randsac_vit-mini-p4_square-m2_fashion-mnist.py')


def test_model_normalises_with_the_configs_preprocessor():
    cfg = Config.fromfile(CONFIG)
    model = build_model(cfg)
    preprocessor = model.data_preprocessor
    assert preprocessor._enable_normalize
    assert preprocessor.mean.flatten().tolist() == pytest.approx(
        cfg.data_preprocessor.mean)
    assert preprocessor.std.flatten().tolist() == pytest.approx(
        cfg.data_preprocessor.std)


def test_seed_gives_the_same_untrained_model_and_checkpoint_loads(tmp_path):
    cfg = Config.fromfile(CONFIG)
    a, b, c = (build_model(cfg, seed=s) for s in (3, 3, 4))
    key = 'backbone.layers.0.attn.qkv.weight'
    assert torch.equal(a.state_dict()[key], b.state_dict()[key])
    assert not torch.equal(a.state_dict()[key], c.state_dict()[key])
    torch.save(dict(state_dict=a.state_dict()), tmp_path / 'a.pth')
    loaded = build_model(cfg, str(tmp_path / 'a.pth'), seed=4)
    assert torch.equal(loaded.state_dict()[key], a.state_dict()[key])


def test_a_downstream_config_is_refused_naming_its_model():
    segmentation = osp.join(
        REPO_ROOT, 'configs', 'segmentation',
        'upernet_randsac-vit-mini-p4_1xb8-4k_digit-scenes-64x64.py')
    with pytest.raises(ValueError, match="config: its model "
                       "'EncoderDecoder' is not an mmpretrain model"):
        build_model(segmentation)


@pytest.mark.parametrize('name, scope, folder', [
    ('mask-rcnn_randsac-vit-b_fpn_coco', 'mmdet', 'detection'),
    ('upernet_randsac-vit-b_8xb2-160k_ade20k-512x512', 'mmseg',
     'segmentation')])
def test_a_downstream_model_name_is_refused_naming_its_config(name, scope,
                                                               folder):
    """Our model index's UperNet and Mask R-CNN entries, which mmpretrain's
    list leaves out, are named with the package that builds them."""
    config = f'configs/{folder}/{name}.py'
    assert osp.isfile(osp.join(REPO_ROOT, config))
    with pytest.raises(ValueError) as info:
        build_model(name)
    assert str(info.value) == (
        f"config: '{name}' is an {scope} model, not an mmpretrain one (its "
        f'config: {config}); build_model builds pretraining and '
        f'classification models: train it with tools/train.py {config}')
