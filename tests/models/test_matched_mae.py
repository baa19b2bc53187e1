"""MAEMatchedToRandSAC: mmpretrain's MAE with a RandSAC config's encoder
and a decoder of its decoder's depth, width and heads (the paper's MAE
baseline)."""
import pytest
import torch
from mmpretrain.models import MAE
from mmpretrain.registry import MODELS

from .helpers import DIMS, tiny_cfg


def matched(cfg, **kwargs):
    return MODELS.build(dict(cfg, type='MAEMatchedToRandSAC', **kwargs))


@pytest.mark.parametrize('dec_width', [None, 16])
def test_shapes_are_the_randsac_models(dec_width):
    cfg = tiny_cfg('skip', enc_layers=3, dec_layers=2, norm_pix=False)
    if dec_width:
        cfg['neck']['embed_dims'] = dec_width
    randsac = MODELS.build(cfg)
    mae = matched(cfg)
    assert type(mae) is MAE  # mmpretrain's own, not a copy
    assert len(mae.backbone.layers) == len(randsac.backbone.layers) == 3
    assert mae.backbone.embed_dims == randsac.backbone.embed_dims == DIMS
    assert mae.backbone.patch_resolution == randsac.backbone.patch_resolution
    assert mae.backbone.mask_ratio == 0.75
    assert len(mae.neck.decoder_blocks) == len(randsac.neck.layers) == 2
    width = dec_width or DIMS
    assert mae.neck.decoder_embed.out_features == randsac.neck.embed_dims \
        == width
    assert mae.neck.decoder_blocks[0].attn.num_heads == \
        randsac.neck.layers[0].num_heads == 4
    assert mae.neck.decoder_blocks[0].ffn.layers[0][0].out_features == \
        4 * width  # RandSACDecoder's mlp_ratio default
    assert mae.neck.decoder_pred.out_features == 4 * 4 * 3
    assert mae.head.norm_pix is False and mae.head.patch_size == 4


def test_trains_a_step():
    mae = matched(tiny_cfg('skip'), mask_ratio=0.5)
    mae.init_weights()
    loss = mae.loss(torch.rand(2, 3, 32, 32), [])['loss']
    loss.backward()
    assert torch.isfinite(loss) and loss > 0
    assert mae.backbone.mask_ratio == 0.5


def test_refuses_a_model_without_a_decoder():
    with pytest.raises(ValueError, match="backbone must be a RandSACViT "
                       r"config .* got type 'RandSACTwoStreamViT'"):
        matched(tiny_cfg('two_stream'))
    cfg = tiny_cfg('skip')
    del cfg['neck']
    with pytest.raises(ValueError, match='neck must be a RandSACDecoder'):
        matched(cfg)


def test_refuses_non_rgb_images():
    cfg = tiny_cfg('skip')
    cfg['backbone']['in_channels'] = 1
    with pytest.raises(ValueError, match=r'backbone.in_channels=1'):
        matched(cfg)


def test_its_encoder_evaluates_as_it_was_pretrained(tmp_path):
    """The MAE evaluation configs' backbone (RandSACViT with MAE's class
    token) computes exactly MAEViT's features from an MAE checkpoint."""
    mae = matched(tiny_cfg('skip'))
    mae.init_weights()
    torch.save(dict(state_dict=mae.state_dict()), tmp_path / 'mae.pth')
    cfg = tiny_cfg('skip')['backbone']
    vit = MODELS.build(dict(
        cfg, with_cls_token=True, init_cfg=dict(
            type='Pretrained', prefix='backbone.',
            checkpoint=str(tmp_path / 'mae.pth'))))
    vit.init_weights()
    images = torch.rand(2, 3, 32, 32)
    mae.eval(), vit.eval()
    with torch.no_grad():
        # (mask=None: mmpretrain 1.2.0 tests `mask is None or False`)
        expected = mae.backbone(images, mask=None)[-1]
        assert torch.equal(vit(images)[-1], expected)
    with pytest.raises(ValueError, match='has no class token'):
        MODELS.build(dict(tiny_cfg('skip'), backbone=dict(
            cfg, with_cls_token=True)))


@pytest.mark.parametrize('part, change, message', [
    ('neck', dict(encoder_dims=99), r'neck.encoder_dims=99 contradicts'),
    ('neck', dict(num_patches=(4, 4)), r'neck.num_patches=\(4, 4\)'),
    ('neck', dict(drop_path_rate=0.1), r'neck.drop_path_rate=0.1'),
    ('neck', dict(pos_embed_type='learned'), r"neck.pos_embed_type='learned'"),
    ('neck', dict(bogus=1), r"neck keys \['bogus'\]"),
    ('head', dict(patch_size=8), r'head.patch_size=8 contradicts'),
    ('backbone', dict(pos_embed_type='learned'), 'backbone.pos_embed_type'),
    ('backbone', dict(patch_size=5), r'patch_size 5 gives a 7x7 grid'),
    ('backbone', dict(img_size=(32, 64)), 'gives a 8x16 grid'),
])
def test_refuses_what_mae_cannot_match(part, change, message):
    cfg = tiny_cfg('skip')
    cfg[part].update(change)
    with pytest.raises(ValueError, match=message):
        matched(cfg)


def test_passes_vit_settings_and_refuses_an_attention_kernel():
    cfg = tiny_cfg('skip')
    with pytest.raises(ValueError, match='attention.*MAE has no masked'):
        matched(dict(cfg, attention='sdpa'))
    cfg['backbone']['drop_path_rate'] = 0.1
    cfg['neck'].update(mlp_ratio=2.0, skip_connection=True)
    mae = matched(cfg)
    assert mae.backbone.layers[-1].ffn.dropout_layer.drop_prob == \
        pytest.approx(0.1)
    assert mae.neck.decoder_blocks[0].ffn.layers[0][0].out_features == \
        2 * DIMS
