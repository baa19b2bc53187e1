"""The benchmark's reference and RandSAC compute the same loss (so the
throughput ratios compare equal work)."""
import pytest
import torch
from mmpretrain.registry import MODELS

import randsac_mm.registration  # noqa: F401  (registers RandSAC)
from experiments import reference_randsac as reference
from experiments.benchmarks import throughput as benchmark


@pytest.mark.parametrize('setting', list(benchmark.SETTINGS))
@pytest.mark.parametrize('attention', ['explicit', 'sdpa'])
@pytest.mark.heavy
def test_same_loss_same_weights_same_layout(setting, attention):
    torch.manual_seed(0)
    model = MODELS.build(benchmark.build_model_cfg(setting, 'ours'))
    model.init_weights()
    model.attention = attention
    if model.neck.skip_connection:  # exercise the whole mixer
        with torch.no_grad():
            model.neck.skip_weights.normal_()
    ref = reference.reference_from_randsac(model)
    samples = benchmark.layouts(setting, 2)[0]
    ranks = model.stack_token_ranks(samples)
    images = torch.randn(2, 3, *benchmark.image_size(setting))
    with torch.no_grad():
        ours = model.loss(images, samples)['loss']
        theirs = ref(images, ranks)
    assert torch.isfinite(ours)
    torch.testing.assert_close(theirs, ours, rtol=1e-5, atol=0)


def test_reference_is_a_different_computation():
    """Guards the test above against comparing a model with itself: other
    weights give another loss."""
    setting = 'vit-t-cifar'
    model = MODELS.build(benchmark.build_model_cfg(setting, 'ours'))
    model.init_weights()
    ref = reference.reference_from_randsac(model)
    assert isinstance(ref.encoder[0], torch.nn.TransformerEncoderLayer)
    ranks = model.stack_token_ranks(benchmark.layouts(setting, 2)[0])
    images = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        before = ref(images, ranks)
        ref.encoder[3].linear1.weight.mul_(1.5)
        assert not torch.allclose(ref(images, ranks), before, rtol=1e-4)
