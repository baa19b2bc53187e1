import numpy as np
import pytest
import torch
from mmpretrain.registry import MODELS

from .helpers import (
    LAYOUT_KINDS,
    VARIANTS,
    build_model,
    layouts,
    samples,
    tiny_cfg,
)


def fixed_batch(kind='hier_blob', size=8, seed=0):
    gen = torch.Generator().manual_seed(seed)
    # Smooth images (low-frequency content) so there is something to learn.
    coarse = torch.randn(size, 3, 4, 4, generator=gen)
    images = torch.nn.functional.interpolate(coarse, size=32, mode='bilinear',
                                             align_corners=False)
    return images, samples(layouts([LAYOUT_KINDS[kind]] * size, seed=seed))


@pytest.mark.parametrize('variant', VARIANTS)
def test_loss_halves_on_a_fixed_batch_within_100_steps(variant):
    model = build_model(variant).train()
    images, data_samples = fixed_batch()
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=2e-3,
        weight_decay=0.0)
    losses = []
    for _ in range(100):
        loss = model.loss(images, data_samples)['loss']
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert np.isfinite(losses).all()
    assert min(losses[-5:]) < 0.5 * losses[0], (losses[0], losses[-5:])


@pytest.mark.parametrize('variant', VARIANTS)
def test_one_token_segments_give_finite_loss_and_grads(variant):
    # Singleton first and last segments in one sample, big ones in another.
    ranks = np.zeros((2, 64), dtype=np.int64)
    ranks[0] = np.r_[0, np.repeat(np.arange(1, 22), 3)][:64]
    ranks[0, -1] = 22
    ranks[1] = np.r_[np.zeros(20), np.arange(1, 45)]
    model = build_model(variant).train()
    loss = model.loss(torch.randn(2, 3, 32, 32), samples(ranks))['loss']
    loss.backward()
    assert torch.isfinite(loss)
    for name, p in model.named_parameters():
        if p.grad is not None:
            assert torch.isfinite(p.grad).all(), name


def test_blob_layouts_with_singletons_from_the_generator():
    # Many blobs on a small grid: singletons are common.
    token_ranks = layouts([dict(segment='blob', num_segments=40)] * 4)
    assert any(np.bincount(r).min() == 1 for r in token_ranks)
    loss = build_model('skip').loss(torch.randn(4, 3, 32, 32),
                                    samples(token_ranks))['loss']
    assert torch.isfinite(loss)


def test_norm_pix_target_is_normalised_per_patch():
    head = build_model('skip').head
    patches = torch.randn(2, 5, 48) * 3 + 7
    target = head.construct_target(patches)
    assert torch.allclose(target.mean(-1), torch.zeros(2, 5), atol=1e-5)
    assert torch.allclose(target.std(-1), torch.ones(2, 5), atol=1e-3)
    head.norm_pix = False
    assert torch.equal(head.construct_target(patches), patches)


def test_head_loss_regresses_the_pixels_of_the_predicted_tokens():
    """The head builds the target from the images' pixels at the given
    positions and hands it, with the mask, to its loss module."""
    head = build_model('skip').head
    assert type(head.loss_module).__name__ == 'GlobalTokenMSELoss'
    images = torch.randn(2, 3, 32, 32)
    order = torch.tensor([[5, 0, 63], [7, 7, 1]])
    mask = torch.tensor([[True, True, False], [True, False, True]])
    target = head.construct_target(head.patchify(images))
    expected = target[torch.arange(2)[:, None], order]
    pred = torch.randn(2, 3, 48)
    per_token = (pred - expected).pow(2).mean(-1)
    assert head.loss(pred, images, order, mask).item() == pytest.approx(
        per_token[mask].mean().item(), rel=1e-6)


def test_head_takes_its_loss_from_a_config():
    head = MODELS.build(dict(
        type='RandSACPretrainHead', in_channels=8, patch_size=4,
        norm_pix=False,
        loss=dict(type='PixelReconstructionLoss', criterion='L1')))
    images = torch.zeros(1, 3, 8, 8)
    pred = torch.full((1, 2, 48), 3.0)
    mask = torch.tensor([[True, False]])
    loss = head.loss(pred, images, torch.tensor([[0, 3]]), mask)
    assert loss.item() == pytest.approx(3.0)


def test_reconstruct_is_in_raster_order():
    model = build_model('skip')
    images, data_samples = fixed_batch('blob', size=3)
    out = model.reconstruct(images, data_samples)
    ranks = torch.as_tensor(np.stack([s.token_rank for s in data_samples]))
    assert torch.equal(out['token_rank'], ranks)
    assert torch.equal(out['loss_mask'], ranks >= 1)
    assert torch.equal(out['target'], model.head.construct_target(
        model.head.patchify(images)))
    assert (out['pred'][~out['loss_mask']] == 0).all()
    # The raster-order prediction of a token equals the sorted one.
    batch = model.plan_batch(images, ranks)
    pred = model.predict_segments(images, batch)
    b, pos = 1, batch.loss_mask[1].nonzero()[0, 0]
    token = batch.decoder_order[b, pos]
    assert torch.allclose(out['pred'][b, token], pred[b, pos])


@pytest.mark.parametrize('variant', VARIANTS)
@pytest.mark.parametrize('kind', ['hier_blob', 'flat_square'])
def test_loss_and_reconstruct_share_their_predictions(variant, kind,
                                                      monkeypatch):
    """Both run predict_segments: the training loss is the MSE of the
    reconstruction's predictions and targets over its predicted tokens."""
    model = build_model(variant)
    images, data_samples = fixed_batch(kind, size=3)
    calls = []
    predict = model.predict_segments

    def spy(images, batch):
        calls.append(batch)
        return predict(images, batch)

    monkeypatch.setattr(model, 'predict_segments', spy)
    loss = model.loss(images, data_samples)['loss']
    out = model.reconstruct(images, data_samples)
    assert len(calls) == 2
    per_token = (out['pred'] - out['target']).pow(2).mean(-1)
    torch.testing.assert_close(loss, per_token[out['loss_mask']].mean())


def test_loss_takes_no_unknown_argument():
    """Nothing is passed to loss only to be ignored: an untrimmed step
    plans its batch with plan_batch(..., trim_outer_segments=False)."""
    model = build_model('skip')
    images, data_samples = fixed_batch(size=2)
    with pytest.raises(TypeError, match='trim_outer_segments'):
        model.loss(images, data_samples, trim_outer_segments=False)
    batch = model.plan_batch(images, data_samples, trim_outer_segments=False)
    assert (batch.enc_len, batch.dec_start) == (64, 0)
    pred = model.predict_segments(images, batch)
    untrimmed = model.head.loss(pred, images, batch.decoder_order,
                                batch.loss_mask)
    torch.testing.assert_close(untrimmed,
                               model.loss(images, data_samples)['loss'])


def test_extract_feat_is_mean_of_final_normed_tokens():
    model = build_model('skip')
    images = torch.randn(2, 3, 32, 32)
    feat = model.extract_feat(images)[0]
    backbone = model.backbone
    x = backbone.embed_tokens(images)
    for layer in backbone.layers:
        x = layer(x)
    assert feat.shape == (2, 32)
    assert torch.allclose(feat, backbone.ln1(x).mean(1), atol=1e-5)


def test_skip_weights_mix_encoder_layers():
    model = build_model('skip', enc_layers=3, dec_layers=2)
    decoder = model.neck
    assert decoder.skip_weights.shape == (2, 3)
    hidden = [torch.full((1, 4, 32), float(k + 1)) for k in range(3)]
    with torch.no_grad():
        decoder.skip_weights.copy_(torch.tensor([[1., 0., 0.], [.5, .25, 2.]]))
    memories = list(decoder.memories(hidden))
    assert torch.allclose(memories[0], hidden[0])
    assert torch.allclose(memories[1], torch.full((1, 4, 32), .5 + .5 + 6.))
    plain = build_model('plain', enc_layers=3).neck
    assert all(m is hidden[-1] for m in plain.memories(hidden))


@pytest.mark.parametrize('change, message', [
    (dict(neck=dict(num_layers=0)), r'num_layers \(decoder depth\) must be'),
    (dict(backbone=dict(pos_embed_type='random')), 'pos_embed_type must be'),
    (dict(backbone=dict(with_cls_token=True)), 'has no class token'),
    (dict(neck=None), 'backbone must be RandSACTwoStreamViT'),
])
def test_bad_configs(change, message):
    cfg = tiny_cfg('skip')
    for key, value in change.items():
        if value is None:
            cfg[key] = None
        else:
            cfg[key].update(value)
    with pytest.raises(ValueError, match=message):
        MODELS.build(cfg)


def test_the_two_stream_backbone_takes_no_neck():
    cfg = tiny_cfg('two_stream')
    cfg['neck'] = dict(type='RandSACDecoder', num_layers=2, num_heads=4)
    with pytest.raises(ValueError, match=r'^RandSACTwoStreamViT predicts the '
                       r'segments itself with its query stream: give '
                       r'neck=None, not a RandSACDecoder$'):
        MODELS.build(cfg)


def test_an_option_a_kernel_does_not_take_is_named():
    cfg = tiny_cfg('skip')
    cfg['attention'] = dict(type='explicit', block_size=8)
    with pytest.raises(ValueError, match=r"^attention 'explicit': "
                       r'ExplicitKernel\(\) takes no arguments$'):
        MODELS.build(cfg)


def test_missing_token_rank_is_a_clear_error():
    from mmpretrain.structures import DataSample
    with pytest.raises(KeyError, match='add RandSACSegmentGenerator'):
        build_model('skip').loss(torch.randn(1, 3, 32, 32), [DataSample()])


def test_wrong_image_size_is_a_clear_error():
    model = build_model('skip')
    with pytest.raises(ValueError, match='crop pretraining images'):
        model.loss(torch.randn(1, 3, 48, 48),
                   samples(layouts([LAYOUT_KINDS['blob']])))


def test_head_unpatchify_inverts_patchify():
    head = build_model('skip').head
    images = torch.randn(2, 3, 32, 32)
    patches = head.patchify(images)
    assert patches.shape == (2, 64, 4 * 4 * 3)
    assert torch.equal(head.unpatchify(patches, (8, 8)), images)
    assert torch.equal(head.unpatchify(patches[:, :32], (4, 8)),
                       images[:, :, :16])  # the top half's tokens
    with pytest.raises(ValueError, match='grid 8x4 does not hold the 64'):
        head.unpatchify(patches, (8, 4))
