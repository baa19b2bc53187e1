"""The neck's and head's shapes come from the backbone; a config that
states one differently is refused with both values named."""
import copy

import pytest
import torch
from mmpretrain.registry import MODELS

from .helpers import (
    DIMS,
    GRID,
    LAYOUT_KINDS,
    build_model,
    layouts,
    samples,
    tiny_cfg,
)


def test_omitted_shapes_are_the_backbones():
    model = build_model('skip', enc_layers=3)
    assert model.neck.grid == GRID
    assert model.neck.encoder_layers == 3
    assert model.neck.layers[0].cross_kv.in_features == DIMS
    assert model.head.patch_size == 4
    assert model.head.predictor.in_features == model.neck.embed_dims == DIMS
    two_stream = build_model('two_stream')
    assert two_stream.head.predictor.in_features == DIMS


def test_head_reads_the_decoder_width_when_it_differs():
    cfg = tiny_cfg('skip')
    cfg['neck']['embed_dims'] = 16
    model = MODELS.build(cfg)
    assert model.head.predictor.in_features == 16
    assert model.neck.layers[0].cross_kv.in_features == DIMS


def test_agreeing_shapes_may_still_be_stated():
    cfg = tiny_cfg('skip', enc_layers=2)
    cfg['neck'].update(num_patches=64, encoder_dims=DIMS, encoder_layers=2)
    cfg['head'].update(patch_size=4, in_channels=DIMS)
    model = MODELS.build(cfg)
    assert model.neck.grid == GRID


@pytest.mark.parametrize('variant, part, key, value, derived', [
    ('skip', 'neck', 'num_patches', (10, 10), '(8, 8)'),
    ('skip', 'neck', 'num_patches', 100, '(8, 8)'),
    ('skip', 'neck', 'encoder_dims', 64, str(DIMS)),
    ('skip', 'neck', 'encoder_layers', 12, '2'),
    ('skip', 'head', 'patch_size', 8, '4'),
    ('skip', 'head', 'in_channels', 64, str(DIMS)),
    ('skip', 'head', 'in_chans', 1, '3'),
    ('two_stream', 'head', 'in_channels', 64, str(DIMS)),
    ('two_stream', 'head', 'patch_size', 2, '4'),
])
def test_contradicting_shape_is_refused(variant, part, key, value, derived):
    cfg = tiny_cfg(variant, enc_layers=2)
    cfg[part][key] = value
    with pytest.raises(ValueError) as error:
        MODELS.build(cfg)
    assert f'{part}.{key}={value!r}' in str(error.value)
    assert f'gives {key}={derived}' in str(error.value)


def test_layouts_of_another_grid_are_refused():
    model = build_model('skip')
    ranks = layouts([LAYOUT_KINDS['flat_square']])
    with pytest.raises(ValueError, match='layouts of 16 tokens.*8x8 grid'):
        model.loss(torch.randn(1, 3, 32, 32), samples([ranks[0][:16]]))


@pytest.mark.parametrize('arch, out_indices', [
    (dict(embed_dims=32, num_layers=4, num_heads=4,
          feedforward_channels=64), (1, 2, 3, 4)),
    ('base', (3, 5, 7, 12)),
])
def test_pyramid_taps_only_existing_blocks(arch, out_indices):
    from randsac_mm.downstream import RandSACViTPyramid
    with pytest.raises(ValueError, match=r'out_indices .* must be blocks'):
        RandSACViTPyramid(arch=copy.deepcopy(arch), img_size=32,
                          patch_size=4, out_indices=out_indices)


@pytest.mark.parametrize('out_indices', [(5, 5, 5, 5), (1, 3, 2, 5)])
def test_pyramid_taps_are_distinct_and_in_order(out_indices):
    from randsac_mm.downstream import RandSACViTPyramid
    arch = dict(embed_dims=32, num_layers=6, num_heads=4,
                feedforward_channels=64)
    with pytest.raises(ValueError, match=r'distinct blocks in increasing'):
        RandSACViTPyramid(arch=arch, img_size=32, patch_size=4,
                          out_indices=out_indices)
