import pytest
import torch

from randsac_mm.engine import AutocastOptimWrapper


def test_forward_runs_in_bf16_and_steps():
    model = torch.nn.Linear(8, 4)
    wrapper = AutocastOptimWrapper(
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    before = model.weight.detach().clone()
    with wrapper.optim_context(model):
        out = model(torch.randn(2, 8))
    assert out.dtype == torch.bfloat16
    wrapper.update_params(out.float().pow(2).mean())
    assert not torch.equal(before, model.weight)


def test_rejects_unknown_dtype():
    model = torch.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="dtype must be one of"):
        AutocastOptimWrapper(
            optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
            dtype='int8')
