"""Masked SDPA runs under a chosen backend list, cuDNN only once cleared;
the numerical check of the kernels, on the CPU and (GPU-only) on CUDA."""
import pytest
import torch
from torch.nn.attention import SDPBackend

from randsac_mm.models.attention import (
    DEFAULT_SDPA_BACKENDS,
    SDPAKernel,
    sdpa_backend_list,
)
from randsac_mm.models.attention import numerical_check as check
from randsac_mm.models.attention.numerical_check import (
    CHECK_LENGTHS,
    attention_check,
    clear_kernel,
)

from .helpers import LAYOUT_KINDS, build_model, layouts, samples

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason='needs a CUDA GPU')


def test_names_become_backends_in_order():
    assert DEFAULT_SDPA_BACKENDS == ('efficient', 'flash')
    assert sdpa_backend_list(['math', 'cudnn']) == (
        SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION)


@pytest.mark.parametrize('names', ['efficient', [], ['efficient', 'fast'],
                                   ['math', 'math']])
def test_a_bad_backend_list_is_refused_naming_the_argument(names):
    with pytest.raises(ValueError, match=r"sdpa_backends must be a non-empty "
                       r"list of \('efficient', 'flash', 'cudnn', 'math'\)"):
        sdpa_backend_list(names)


def test_the_model_refuses_a_bad_list_when_built():
    from mmpretrain.registry import MODELS

    from .helpers import tiny_cfg
    with pytest.raises(ValueError, match='sdpa_backends must be'):
        MODELS.build(dict(tiny_cfg(), sdpa_backends=['fastest']))


def test_the_list_decides_the_kernel():
    """On a CPU: the flash kernel, or math; a list with neither says what
    runs where instead of torch's bare "No available kernel"."""
    q, k, v = (torch.randn(2, 3, 10, 8) for _ in range(3))
    mask = torch.ones(10, 10, dtype=torch.bool).tril()
    flash = SDPAKernel(['flash']).attend(q, k, v, mask)
    math = SDPAKernel(['math']).attend(q, k, v, mask)
    torch.testing.assert_close(flash, math, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match=r"masked attention: none of "
                       r"sdpa_backends \['efficient'\] runs torch.float32 on "
                       r"cpu with dropout 0.0 .*'math' runs everything"):
        SDPAKernel(['efficient']).attend(q, k, v, mask)
    with pytest.raises(RuntimeError, match="the fused kernel is 'flash' "
                       r'\(no dropout\)'):
        SDPAKernel(['flash']).attend(q, k, v, mask, 0.1)


def test_the_step_runs_the_models_list():
    """The list reaches every masked layer: a model allowed only a backend
    this CPU lacks cannot take a step; with 'math' it gives the flash
    loss."""
    data = samples(layouts([LAYOUT_KINDS['hier_blob']] * 2))
    images = torch.randn(2, 3, 32, 32)
    losses = {}
    for names in (['flash'], ['math']):
        model = build_model('skip').train()
        model.attention = dict(type='sdpa', backends=names)
        losses[names[0]] = model.loss(images, data)['loss']
    torch.testing.assert_close(losses['flash'], losses['math'], rtol=1e-5,
                               atol=1e-6)
    model.attention = dict(type='sdpa', backends=['cudnn'])
    with pytest.raises(RuntimeError, match=r"sdpa_backends \['cudnn'\]"):
        model.loss(images, data)


def test_cudnn_runs_only_where_its_check_passed(monkeypatch):
    """The guard runs the low-logsumexp check once per device and refuses a
    list naming 'cudnn' where it failed; other lists and CPUs pass."""
    calls = []

    def failed(label, device):
        calls.append((label, device))
        return (dict(kernel=label, length=64, rows='low-lse',
                     finite=False, nan=4096, error=float('nan'), ok=False), )
    monkeypatch.setattr(check, '_clearance_failures', failed)
    monkeypatch.setattr(torch.cuda, 'get_device_name', lambda d: 'H100')
    with_cudnn = SDPAKernel(['cudnn', 'efficient'])
    clear_kernel(with_cudnn, torch.device('cpu'))
    clear_kernel(SDPAKernel(DEFAULT_SDPA_BACKENDS), torch.device('cuda', 0))
    assert calls == []
    with pytest.raises(RuntimeError, match=(
            r"sdpa_backends names 'cudnn', and on cuda:0 \(H100, .*fails "
            r'the low-logsumexp check at length 64 \(4096 NaN values; '
            r"pytorch#196678\): remove 'cudnn'")):
        clear_kernel(with_cudnn, torch.device('cuda', 0))
    assert calls == [('sdpa:cudnn', torch.device('cuda', 0))]
    monkeypatch.setattr(check, '_clearance_failures', lambda *args: ())
    clear_kernel(with_cudnn, torch.device('cuda', 0))


def test_a_model_is_cleared_for_a_device_at_its_first_batch_there(
        monkeypatch):
    """The check runs the first time a device asks the model for its
    kernel (``kernel_on``, which ``plan_batch`` calls with the images'
    device, before any attention runs); a CPU step never runs CUDA's."""
    calls = []

    def failed(label, device):
        calls.append(device)
        return (dict(kernel=label, length=64, rows='low-lse', finite=False,
                     nan=1, error=float('nan'), ok=False), )
    monkeypatch.setattr(check, '_clearance_failures', failed)
    monkeypatch.setattr(torch.cuda, 'get_device_name', lambda d: 'H100')
    model = build_model('skip')
    model.attention = dict(type='sdpa', backends=['cudnn', 'math'])
    data = samples(layouts([LAYOUT_KINDS['hier_blob']] * 2))
    model.train().loss(torch.randn(2, 3, 32, 32), data)  # the CPU's step
    assert calls == []
    with pytest.raises(RuntimeError, match=r"sdpa_backends names 'cudnn', "
                       r'and on cuda:0 \(H100'):
        model.kernel_on(torch.device('cuda', 0))
    assert calls == [torch.device('cuda', 0)]


def test_the_check_on_a_cpu():
    """The table's rows: the CPU's kernels pass in both kinds of rows,
    a backend the CPU lacks and flex's backward are reported skipped."""
    rows = attention_check('cpu', ['sdpa:flash', 'sdpa:math', 'explicit',
                                   'sdpa:efficient', 'flex'],
                           lengths=(63, 64), batch=2, heads=2, head_dim=16)
    by = {(r['kernel'], r['length'], r['rows']): r for r in rows}
    assert len(rows) == 5 * 2 * 2
    for kernel in ('sdpa:flash', 'sdpa:math', 'explicit'):
        for length in (63, 64):
            for kind in ('normal', 'low-lse'):
                row = by[kernel, length, kind]
                assert row['ok'] and row['finite'] and row['nan'] == 0, row
                assert row['error'] > 0, row  # bf16, not float32
                if kind == 'normal':
                    assert row['error'] < 0.05, row
    assert 'No available kernel' in by['sdpa:efficient', 64, 'normal'][
        'skipped'] or 'none of sdpa_backends' in by[
        'sdpa:efficient', 64, 'normal']['skipped']
    assert by['flex', 63, 'low-lse']['skipped'] == \
        'flex_attention has no backward on a CPU'


def test_a_nan_fails_the_check(monkeypatch):
    """A kernel that gives NaN gradients (cuDNN's bug) is not ok."""
    real = check.run_kernel

    def nan_grad_q(kernel, *args):
        out = real(kernel, *args)
        if kernel.name == 'explicit':
            out[1] = torch.full_like(out[1], float('nan'))
        return out
    monkeypatch.setattr(check, 'run_kernel', nan_grad_q)
    row, = attention_check('cpu', ['explicit'], lengths=(64, ),
                           rows=('low-lse', ), batch=1, heads=1)
    assert not row['ok'] and not row['finite'] and row['nan'] == 64 * 64


def test_the_low_lse_rows_are_what_they_claim():
    """Every row's logsumexp is below -88.7 (float32's smallest normal
    number's log), the condition of pytorch#196678."""
    q, k, v, _, rank = check.kernel_case(64, 'low-lse', 'cpu', batch=1,
                                         heads=2)
    logits = q @ k.transpose(-2, -1) / q.shape[-1]**0.5
    allowed = rank[0, None, :] <= rank[0, :, None]
    lse = logits.masked_fill(~allowed, float('-inf')).logsumexp(-1)
    assert lse.max() < -88.7
    q, k, *_ = check.kernel_case(64, 'normal', 'cpu', batch=1, heads=2)
    assert (q @ k.transpose(-2, -1)).abs().max() < 200


@needs_cuda
def test_masked_attention_kernels_on_this_gpu():
    """The issue's check on a GPU: sdpa (each backend), explicit and flex,
    forward and backward, bf16 against float32, at every length, normal
    and low-logsumexp rows. The model's default backends, explicit and
    flex must pass; cuDNN may fail (pytorch#196678), and then the guard
    refuses a list naming it."""
    kernels = ['sdpa:efficient', 'sdpa:math', 'explicit', 'flex',
               'sdpa:cudnn']
    rows = attention_check('cuda', kernels, CHECK_LENGTHS)
    for row in rows:
        if row['kernel'] != 'sdpa:cudnn':
            assert row.get('ok'), row
    cudnn_failed = any(not r.get('ok') for r in rows
                       if r['kernel'] == 'sdpa:cudnn'
                       and r['rows'] == 'low-lse'
                       and r['length'] in (64, 192))
    check._clearance_failures.cache_clear()
    with_cudnn = SDPAKernel(['cudnn', 'efficient'])
    if cudnn_failed:
        with pytest.raises(RuntimeError, match="names 'cudnn'"):
            clear_kernel(with_cudnn, torch.device('cuda'))
    else:
        clear_kernel(with_cudnn, torch.device('cuda'))
