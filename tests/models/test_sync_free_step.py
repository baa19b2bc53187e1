"""The training step waits on no device value: it runs on a fake CUDA device
and compiles as one graph; the skip mixing keeps one low-precision stack."""
import pytest
import torch
from torch._dynamo.testing import CompileCounterWithBackend
from torch._subclasses.fake_tensor import (
    DataDependentOutputException,
    FakeTensorMode,
)

from .helpers import LAYOUT_KINDS, VARIANTS, build_model, layouts, samples

# Equal segments (squares) and unequal ones (blobs: the sequence lengths
# depend on the smallest first and last segment of the batch).
KINDS = ('flat_square', 'hier_blob')


@pytest.mark.parametrize('attention', ['sdpa', 'explicit'])
@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('variant', VARIANTS)
def test_loss_runs_on_a_fake_cuda_device(variant, kind, attention):
    """Under FakeTensorMode a device value cannot be read: any .item(),
    int() or bool() of a device tensor in loss() raises, and so does an
    operation mixing CPU and CUDA tensors."""
    model = build_model(variant).train()
    # A fake device has no compute capability to choose a fused kernel by:
    # only math runs there.
    model.attention = dict(type='sdpa', backends=['math']) \
        if attention == 'sdpa' else attention
    data = samples(layouts([LAYOUT_KINDS[kind]] * 3))
    with FakeTensorMode(allow_non_fake_inputs=True):
        model = model.to('cuda')
        images = torch.randn(3, 3, 32, 32, device='cuda')
        loss = model.loss(images, data)['loss']
    assert loss.device.type == 'cuda' and loss.shape == ()
    assert loss.dtype == torch.float32


def test_the_fake_device_catches_a_sync():
    """The test above is not vacuous: reading a device value fails there."""
    with FakeTensorMode(allow_non_fake_inputs=True):
        ranks = torch.zeros(2, 4, dtype=torch.long, device='cuda')
        with pytest.raises(DataDependentOutputException):
            int(ranks.sum())


def compiled_step(model, images, data):
    """``torch.compile(model.loss)``'s loss, gradients and number of
    graphs."""
    counter = CompileCounterWithBackend('aot_eager')
    model.zero_grad()
    loss = torch.compile(model.loss, backend=counter)(images, data)['loss']
    loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()
             if p.grad is not None}
    return loss, grads, counter.frame_count


@pytest.mark.parametrize('variant', VARIANTS)
@pytest.mark.heavy
def test_the_step_compiles_as_one_graph(variant):
    """The compiled loss breaks once, at the host planning (plan_batch,
    never traced); what follows, backbone, neck, head and loss, is one
    graph: any host sync there would break it again. The compiled step
    gives the eager loss and grads; the predictions compile with
    fullgraph=True, which raises on any graph break."""
    torch._dynamo.reset()
    model = build_model(variant).train()
    model.attention = 'sdpa'
    data = samples(layouts([LAYOUT_KINDS['hier_blob']] * 3))
    images = torch.randn(3, 3, 32, 32)
    eager = model.loss(images, data)['loss']
    eager.backward()
    eager_grads = {n: p.grad.clone() for n, p in model.named_parameters()
                   if p.grad is not None}
    loss, grads, graphs = compiled_step(model, images, data)
    assert graphs == 1
    torch.testing.assert_close(loss, eager)
    assert grads.keys() == eager_grads.keys()
    for name, grad in grads.items():
        torch.testing.assert_close(grad, eager_grads[name], msg=name)
    batch = model.plan_batch(images, data)
    predict = torch.compile(model.predict_segments, fullgraph=True,
                            backend='aot_eager')
    with torch.no_grad():
        torch.testing.assert_close(predict(images, batch),
                                   model.predict_segments(images, batch))


@pytest.mark.heavy
def test_the_graph_count_catches_a_sync(monkeypatch):
    """The test above is not vacuous: a host sync in the head's loss breaks
    the step into more graphs."""
    torch._dynamo.reset()
    model = build_model('skip').train()
    loss = model.head.loss

    def syncing_loss(*args):
        value = loss(*args)
        return value * float(value > 0)  # reads the device value

    monkeypatch.setattr(model.head, 'loss', syncing_loss)
    data = samples(layouts([LAYOUT_KINDS['hier_blob']] * 3))
    assert compiled_step(model, torch.randn(3, 3, 32, 32), data)[2] > 1


def test_skip_mixing_keeps_one_low_precision_stack_for_backward():
    """Under bf16 autocast the decoder memories come from one bf16 copy of
    the stacked encoder outputs: what the mixing saves for backward is that
    copy and the [L_dec, L_enc] weights, whatever the decoder depth."""
    model = build_model('skip', enc_layers=4, dec_layers=3).train()
    decoder = model.neck
    hidden = [torch.randn(2, 16, 32, requires_grad=True) for _ in range(4)]
    saved = []

    def pack(tensor):
        saved.append(tensor)
        return tensor

    with torch.autocast('cpu', dtype=torch.bfloat16), \
            torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        memories = decoder.memories(hidden)
    assert len(memories) == 3
    assert all(m.dtype == torch.bfloat16 and m.shape == (2, 16, 32)
               for m in memories)
    stack_bytes = 4 * 2 * 16 * 32 * 2  # L_enc x B x Lk x C, bf16
    assert sum(t.numel() * t.element_size() for t in saved) == \
        stack_bytes + 3 * 4 * 2
    expected = torch.einsum('lk,kbnc->lbnc', decoder.skip_weights.detach(),
                            torch.stack(hidden).detach())
    torch.testing.assert_close(torch.stack(memories).float(), expected,
                               rtol=2e-2, atol=2e-2)
