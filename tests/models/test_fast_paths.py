"""Every fast path computes the same loss and gradients as the plain way."""
import pytest
import torch

from randsac_mm.models.attention import build_attention_kernel
from randsac_mm.models.utils import SegmentBatch

from .helpers import LAYOUT_KINDS, VARIANTS, build_model, layouts

KINDS = ('flat_square', 'hier_blob', 'shuffled')


def loss_and_grads(model, images, ranks, attention='sdpa', **batch_kwargs):
    model.zero_grad()
    batch = SegmentBatch(ranks, build_attention_kernel(attention),
                         **batch_kwargs)
    pred = model.predict_segments(images, batch)
    loss = model.head.loss(pred, images, batch.decoder_order,
                           batch.loss_mask)
    loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()
             if p.grad is not None}
    return loss.detach(), grads


def assert_same(a, b, tol=1e-5):
    loss_a, grads_a = a
    loss_b, grads_b = b
    torch.testing.assert_close(loss_a, loss_b, rtol=tol, atol=0)
    assert grads_a.keys() == grads_b.keys() and grads_a
    for name in grads_a:
        torch.testing.assert_close(grads_a[name], grads_b[name], rtol=tol,
                                   atol=1e-6, msg=name)


def inputs(kind, seed=0):
    ranks = torch.as_tensor(layouts([LAYOUT_KINDS[kind]] * 3, seed=seed))
    torch.manual_seed(seed)
    return torch.randn(3, 3, 32, 32), ranks


@pytest.mark.parametrize('variant', VARIANTS)
@pytest.mark.parametrize('kind', KINDS)
def test_explicit_kernel_equals_sdpa(variant, kind):
    model = build_model(variant)
    images, ranks = inputs(kind)
    assert_same(loss_and_grads(model, images, ranks, attention='sdpa'),
                loss_and_grads(model, images, ranks, attention='explicit'))


@pytest.mark.parametrize('kind', KINDS)
def test_trimming_changes_nothing(kind):
    model = build_model('skip')
    images, ranks = inputs(kind)
    assert_same(loss_and_grads(model, images, ranks),
                loss_and_grads(model, images, ranks,
                               trim_outer_segments=False))


def test_explicit_masks_are_the_additive_form_of_the_boolean_ones():
    _, ranks = inputs('hier_blob')
    boolean = SegmentBatch(ranks, build_attention_kernel('sdpa'))
    additive = SegmentBatch(ranks, build_attention_kernel('explicit'))
    for name in ('encoder_mask', 'decoder_mask', 'cross_mask'):
        b, a = getattr(boolean, name), getattr(additive, name)
        assert a.dtype == torch.float32
        assert torch.equal(a == 0, b) and torch.isinf(a[~b]).all()


def test_activation_checkpointing_gives_the_same_gradients():
    images, ranks = inputs('hier_blob')
    plain = build_model('skip', enc_layers=3, dec_layers=2)
    plain.train()
    checkpointed = build_model('skip', enc_layers=3, dec_layers=2)
    checkpointed.train()
    checkpointed.backbone.with_cp = checkpointed.neck.with_cp = True
    assert_same(loss_and_grads(plain, images, ranks),
                loss_and_grads(checkpointed, images, ranks))


def test_auto_kernel_and_bad_kernel_names():
    model = build_model('skip')
    assert model.attention == 'auto'
    assert model.kernel.name == 'explicit'  # resolved for the CPU
    model.attention = 'sdpa'  # resolved again
    assert model.kernel.name == 'sdpa'
    known = r"\('explicit', 'flex', 'sdpa'\)"
    with pytest.raises(ValueError, match=r"attention must be 'auto' or one "
                       r'of ' + known):
        model.attention = 'flash'
    from mmpretrain.registry import MODELS

    from .helpers import tiny_cfg
    with pytest.raises(ValueError, match=r"attention must be 'auto' or one "
                       r'of ' + known + r".*got 'math'"):
        MODELS.build(dict(tiny_cfg('skip'), attention='math'))


@pytest.mark.parametrize('variant', VARIANTS)
@pytest.mark.parametrize('kind', KINDS)
def test_flex_block_masks_equal_sdpa_forward(variant, kind):
    """flex_attention's block masks follow the same rules (forward only:
    torch has no flex_attention backward on a CPU)."""
    model = build_model(variant)
    images, ranks = inputs(kind)
    with torch.no_grad():
        outputs = [
            model.predict_segments(images, SegmentBatch(
                ranks, build_attention_kernel(a)))
            for a in ('sdpa', 'flex')
        ]
    torch.testing.assert_close(outputs[1], outputs[0], rtol=1e-5, atol=1e-5)


def test_the_kernel_follows_the_device_a_batch_is_on():
    """'auto' is resolved for each device a batch comes on, without being
    told that the model moved: a model moved to another device attends
    with that device's kernel, and back."""
    from randsac_mm.models.attention import (
        ATTENTION_KERNELS,
        SDPAKernel,
        register_attention_kernel,
    )
    register_attention_kernel('meta_sdpa')(
        type('MetaSDPA', (SDPAKernel, ), dict(auto_devices=('meta', ))))
    try:
        model = build_model('skip')
        images, ranks = inputs('hier_blob')
        assert model.plan_batch(images, ranks).kernel.name == 'explicit'
        model.to('meta')
        assert model.kernel.name == 'meta_sdpa'
        batch = model.plan_batch(images.to('meta'), ranks)
        assert batch.kernel.name == 'meta_sdpa'
        assert batch.encoder_mask.device.type == 'meta'
        model.to_empty(device='cpu')
        assert model.kernel.name == 'explicit'
        assert model.plan_batch(images, ranks).kernel.name == 'explicit'
    finally:
        ATTENTION_KERNELS.unregister('meta_sdpa')
