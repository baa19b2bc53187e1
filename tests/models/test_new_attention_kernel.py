"""A new attention kernel from this file alone: masked math with boolean
masks.

``MaskedMath`` is what a user writes to add a kernel (docs/architecture.md,
"Adding an attention kernel"). It takes the same mask form as 'sdpa'
(boolean), which a dispatch on the mask's dtype could not tell apart: the
kernel, not the mask, decides how a layer attends. The fixture registers
it for this module's tests only: the registry is global, and other tests
expect the built-in kernels alone.
"""
import pytest
import torch

from randsac_mm.models.attention import (
    ATTENTION_KERNELS,
    DenseMaskKernel,
    register_attention_kernel,
)
from randsac_mm.models.attention.numerical_check import (
    attention_check,
    check_labels,
)

from .helpers import LAYOUT_KINDS, build_model, layouts, samples


class MaskedMath(DenseMaskKernel):
    """softmax over the allowed keys, ``masked_fill`` with the boolean mask;
    the scores in ``precision``."""

    def __init__(self, precision='float32'):
        if precision not in ('float32', 'float64'):
            raise ValueError("precision must be 'float32' or 'float64', got "
                             f'{precision!r}')
        self.precision = precision

    def dense_form(self, allowed):
        return allowed

    def attend(self, q, k, v, mask, dropout_p=0.0):
        dtype = getattr(torch, self.precision)
        scores = (q.to(dtype) @ k.to(dtype).transpose(-2, -1)) * \
            q.shape[-1]**-0.5
        weights = scores.masked_fill(~mask, float('-inf')).softmax(-1)
        weights = torch.nn.functional.dropout(weights, dropout_p)
        return (weights @ v.to(dtype)).to(v.dtype)


@pytest.fixture(autouse=True, scope='module')
def masked_math():
    register_attention_kernel('masked_math')(MaskedMath)
    yield
    ATTENTION_KERNELS.unregister('masked_math')


def loss_and_grads(attention):
    model = build_model('skip').train()
    model.attention = attention
    data = samples(layouts([LAYOUT_KINDS['hier_blob']] * 3))
    images = torch.randn(3, 3, 32, 32, generator=torch.Generator()
                         .manual_seed(0))
    loss = model.loss(images, data)['loss']
    loss.backward()
    return loss.detach(), {n: p.grad for n, p in model.named_parameters()
                           if p.grad is not None}


def test_a_step_with_the_new_kernel_is_the_explicit_kernels_step():
    loss, grads = loss_and_grads('masked_math')
    expected, expected_grads = loss_and_grads('explicit')
    torch.testing.assert_close(loss, expected, rtol=1e-5, atol=1e-6)
    assert grads.keys() == expected_grads.keys()
    for name, grad in grads.items():
        torch.testing.assert_close(grad, expected_grads[name], rtol=1e-4,
                                   atol=1e-6, msg=name)


def test_its_options_come_from_the_config_and_are_checked():
    loss, _ = loss_and_grads(dict(type='masked_math', precision='float64'))
    expected, _ = loss_and_grads('explicit')
    torch.testing.assert_close(loss, expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="precision must be 'float32' or "
                       "'float64', got 'half'"):
        loss_and_grads(dict(type='masked_math', precision='half'))


def test_the_numerical_check_covers_it():
    assert 'masked_math' in check_labels()
    rows = attention_check('cpu', ['masked_math'], lengths=(63, ), batch=2,
                           heads=2, head_dim=16)
    assert [r['rows'] for r in rows] == ['normal', 'low-lse']
    assert all(r['ok'] and r['nan'] == 0 for r in rows), rows
