"""The whole training step compiles: ``torch.compile(model.loss)`` on the
data samples the pipeline packs (numpy layouts), with the host planning run
eagerly outside the compiled region; and ``CompileLossHook``
(``tools/train.py --compile``) turns it on for the step mmengine runs
(``forward(mode='loss')``)."""
from copy import deepcopy
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from mmcv.transforms import Compose
from mmengine.registry import HOOKS
from torch._dynamo.testing import CompileCounterWithBackend

from randsac_mm.engine import compile_loss

from .helpers import VARIANTS, build_model


def pipeline_samples(batch_size, seed):
    """Data samples as the pretraining pipeline packs them: blob layouts
    (sizes vary, so the sequence lengths vary from batch to batch),
    ``token_rank`` a numpy array."""
    pipeline = Compose([
        dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4,
             segment='blob', num_segments=11, hierarchy=(5, )),
        dict(type='PackInputs', algorithm_keys=['token_rank']),
    ])
    np.random.seed(seed)
    image = np.zeros((32, 32, 3), np.uint8)
    packed = [pipeline(dict(img=image)) for _ in range(batch_size)]
    assert isinstance(packed[0]['data_samples'].token_rank, np.ndarray)
    return [p['data_samples'] for p in packed]


def loss_and_grads(model, loss_fn, images, data):
    model.zero_grad()
    loss = loss_fn(images, data)['loss']
    loss.backward()
    return loss.detach(), {n: p.grad.clone()
                           for n, p in model.named_parameters()
                           if p.grad is not None}


# Seeds whose batches give other encoder and decoder lengths (61 and 10,
# 58 and 5 tokens): the second batch runs a recompiled, dynamic graph.
SEEDS = (0, 2)


# Through AOT autograd without code generation, which traces exactly what
# inductor would compile, in a tenth of the time; inductor itself compiles
# the step in the acceptance run's smoke test (tools/train.py --compile,
# tests/experiments/benchmarks/test_gpu_acceptance.py).
@pytest.mark.parametrize('variant', VARIANTS)
@pytest.mark.heavy
def test_the_compiled_loss_is_the_eager_loss(variant, backend='aot_eager'):
    """Two batches of other sequence lengths: the eager losses and
    gradients."""
    torch._dynamo.reset()
    model = build_model(variant).train()
    model.attention = 'sdpa'
    compiled = torch.compile(model.loss, backend=backend)
    lengths = set()
    for seed in SEEDS:
        data = pipeline_samples(3, seed)
        images = torch.randn(3, 3, 32, 32, generator=torch.Generator()
                             .manual_seed(seed))
        eager, eager_grads = loss_and_grads(model, model.loss, images, data)
        loss, grads = loss_and_grads(model, compiled, images, data)
        batch = model.plan_batch(images, data)
        lengths.add((batch.enc_len, batch.dec_start))
        torch.testing.assert_close(loss, eager, rtol=1e-5, atol=1e-6)
        assert grads.keys() == eager_grads.keys()
        for name, grad in grads.items():
            torch.testing.assert_close(grad, eager_grads[name], rtol=1e-4,
                                       atol=1e-5, msg=name)
    assert len(lengths) == len(SEEDS)


@pytest.mark.heavy
def test_the_hook_compiles_the_step_mmengine_runs():
    """mmengine's call, forward(mode='loss'), runs the compiled loss: the
    eager loss. Five batches of five sequence lengths compile three times
    (then the sizes are dynamic and no new length recompiles); the host
    planning is never compiled."""
    torch._dynamo.reset()
    counter = CompileCounterWithBackend('aot_eager')
    model = build_model('skip').train()
    reference = build_model('skip').train()
    hook = HOOKS.build(dict(type='CompileLossHook', backend=counter))
    hook.before_train(SimpleNamespace(model=model))
    lengths = set()
    for seed in range(5):
        data = pipeline_samples(2, seed)
        images = torch.randn(2, 3, 32, 32)
        torch.testing.assert_close(model(images, data, mode='loss')['loss'],
                                   reference.loss(images, data)['loss'])
        batch = model.plan_batch(images, data)
        lengths.add((batch.enc_len, batch.dec_start))
    assert len(lengths) == 5 and counter.frame_count == 3
    # Off without the hook: the class's own loss.
    assert reference.loss.__func__ is type(reference).loss


@pytest.mark.heavy
def test_a_copy_of_a_compiled_model_runs_its_own_weights():
    """An EMA copy (a deep copy) shares the compiled function, not the
    model it was compiled on."""
    torch._dynamo.reset()
    model = build_model('skip').train()
    compile_loss(model, backend='aot_eager')
    data = pipeline_samples(2, 0)
    images = torch.randn(2, 3, 32, 32)
    model(images, data, mode='loss')
    copy = deepcopy(model)
    with torch.no_grad():
        for p in copy.parameters():
            p.mul_(0.5)
    torch.testing.assert_close(copy(images, data, mode='loss')['loss'],
                               type(copy).loss(copy, images, data)['loss'])
    assert not torch.allclose(copy(images, data, mode='loss')['loss'],
                              model(images, data, mode='loss')['loss'])
