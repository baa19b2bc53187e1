import re

import numpy as np
import pytest
from mmcv.transforms import Compose
from mmengine.registry import init_default_scope
from mmpretrain.registry import TRANSFORMS

from randsac_mm.datasets import RandSACSegmentGenerator

init_default_scope('mmpretrain')


def build(**kwargs):
    cfg = dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4)
    cfg.update(kwargs)
    return TRANSFORMS.build(cfg)


def test_adds_the_documented_key_only():
    t = build(segment='square', square_size=2, hierarchy=(4, ))
    out = t(dict(img=np.zeros((32, 32, 3), np.uint8)))
    assert set(out) == {'img', 'token_rank'}
    assert out['token_rank'].shape == (64, )
    assert out['token_rank'].dtype == np.int64
    assert sorted(set(out['token_rank'].tolist())) == list(range(16))


def test_same_numpy_seed_same_layouts_and_new_draws_differ():
    t = build(segment='blob', num_segments=11, hierarchy=(5, ))
    np.random.seed(123)
    first = [t(dict())['token_rank'] for _ in range(3)]
    np.random.seed(123)
    second = [t(dict())['token_rank'] for _ in range(3)]
    for a, b in zip(first, second):
        assert np.array_equal(a, b)
    assert not np.array_equal(first[0], first[1])


def test_in_pipeline_with_crop_flip_and_pack():
    pipeline = Compose([
        TRANSFORMS.build(cfg) for cfg in [
            dict(type='RandomResizedCrop', scale=32,
                 crop_ratio_range=(0.2, 1.0), backend='pillow'),
            dict(type='RandomFlip', prob=0.5),
            dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4,
                 segment='blob', num_segments=7),
            dict(type='PackInputs', algorithm_keys=['token_rank']),
        ]
    ])
    out = pipeline(dict(img=np.random.randint(0, 255, (50, 40, 3),
                                              dtype=np.uint8)))
    assert tuple(out['inputs'].shape) == (3, 32, 32)
    sample = out['data_samples']
    assert sample.token_rank.shape == (64, )
    assert 2 <= len(set(sample.token_rank)) <= 7


def test_wrong_image_size_is_a_clear_error():
    t = build()
    with pytest.raises(ValueError, match=re.escape(
            'the image is 28x28 but input_size is 32x32')):
        t(dict(img=np.zeros((28, 28, 3), np.uint8)))


@pytest.mark.parametrize('kwargs, message', [
    (dict(input_size=30), 'input_size 30x30 must be divisible by patch_size'),
    (dict(segment='circle'), 'segment must be one of'),
    (dict(square_size=3), 'square_size (M) must divide'),
    (dict(segment='blob', num_segments=100), 'num_segments (K) must be'),
    (dict(hierarchy=(20, )), 'does not coarsen'),
    (dict(serialization='zigzag'), 'serialization must be one of'),
    # An option of another scheme (here the default, 'square').
    (dict(num_segments=9), "segment='square' has no option num_segments"),
    (dict(segment='blob', square_size=2),
     "segment='blob' has no option square_size"),
])
def test_bad_arguments_fail_at_build(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        build(**kwargs)


def test_repr_names_the_arguments():
    text = repr(RandSACSegmentGenerator(192, 16, 'square', square_size=3,
                                        hierarchy=(4, )))
    assert text == ("RandSACSegmentGenerator(input_size=192, patch_size=16, "
                    "segment='square', square_size=3, hierarchy=(4,), "
                    "serialization='random', coherent=True)")
    assert "num_segments=16, hierarchy=(), exact_counts=False" in repr(
        RandSACSegmentGenerator(192, 16, 'blob'))


def test_from_config_builds_the_training_pipelines_layout_step():
    import os.path as osp

    from mmengine.config import Config

    from ...conftest import REPO_ROOT
    configs = osp.join(REPO_ROOT, 'configs')
    cfg = Config.fromfile(osp.join(configs, 'randsac_vit-b_in1k.py'))
    generator = RandSACSegmentGenerator.from_config(cfg)
    assert generator.grid == (12, 12) and generator.spec.square_size == 3
    assert generator.spec.hierarchy == (4, )
    mae = Config.fromfile(osp.join(configs, 'small_scale',
                                   'mae_vit-mini-p4_fashion-mnist.py'))
    with pytest.raises(ValueError, match='not a RandSAC pretraining config'):
        RandSACSegmentGenerator.from_config(mae)


def test_exact_counts_fail_when_the_pipeline_is_built_if_impossible():
    t = build(segment='blob', num_segments=11, hierarchy=(5, ),
              exact_counts=True)
    np.random.seed(0)
    for _ in range(20):
        out = t(dict())
        assert len(np.unique(out['token_rank'])) == 11
    with pytest.raises(ValueError, match='exact_counts=True: 1000 draws of '
                       '64 Gaussians over a 8x8 grid gave none with all 64'):
        build(segment='blob', num_segments=64, exact_counts=True)
