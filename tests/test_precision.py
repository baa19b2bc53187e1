"""randsac_mm.precision: which precision a device runs in, and the bf16 path
against float32 where the CPU computes bf16."""
import os

import pytest
import torch

from randsac_mm import precision
from randsac_mm.precision import CPU_PRECISION_ENV, resolve_precision


@pytest.fixture
def cpu(monkeypatch):
    """A CPU with the bf16 instructions ``cpu(name)`` names (None: none),
    ``RANDSAC_CPU_PRECISION`` unset."""
    monkeypatch.delenv(CPU_PRECISION_ENV)

    def with_instructions(name):
        monkeypatch.setattr(precision, 'cpu_bf16_instructions', lambda: name)
    return with_instructions


# (asked, the CPU's bf16 instructions, RANDSAC_CPU_PRECISION) -> dtype and
# whether the run is warned of emulated bf16.
RULES = [
    ('auto', 'AMX', None, torch.bfloat16, False),
    ('auto', 'Arm BF16', None, torch.bfloat16, False),
    ('auto', None, None, None, False),
    ('auto', 'AMX', 'float32', None, False),
    ('auto', None, 'bfloat16', torch.bfloat16, True),
    ('bfloat16', 'AVX512-BF16', None, torch.bfloat16, False),
    ('bfloat16', None, None, torch.bfloat16, True),
    ('bfloat16', 'AMX', 'float32', torch.bfloat16, False),  # asked: it wins
    ('float32', 'AMX', 'bfloat16', None, False),
]


@pytest.mark.parametrize('asked, instructions, env, dtype, warned', RULES)
def test_cpu_rules(cpu, monkeypatch, asked, instructions, env, dtype,
                   warned):
    cpu(instructions)
    if env is not None:
        monkeypatch.setenv(CPU_PRECISION_ENV, env)
    decided = resolve_precision(asked, 'cpu')
    assert decided.dtype == dtype
    assert (decided.warning is not None) == warned
    if warned:  # the cost is named
        assert 'times the time of float32' in decided.warning


def test_the_log_line_says_which_and_why(cpu):
    cpu(None)
    assert resolve_precision('auto', 'cpu').describe('cpu') == (
        'precision: float32 on the CPU: it has no bf16 instructions (AMX, '
        "AVX512-BF16 or Arm BF16); precision='bfloat16' would emulate bf16 "
        'at 2.6 (AVX-512) to 25 (AVX2) times the time of float32')
    cpu('AMX')
    assert resolve_precision('auto', 'cpu').describe('cpu') == (
        'precision: bfloat16 autocast on the CPU: it computes bf16 natively '
        '(AMX)')


@pytest.mark.parametrize('asked, dtype, expected', [
    ('auto', 'bfloat16', torch.bfloat16),
    ('auto', 'float16', torch.float16),
    ('bfloat16', 'bfloat16', torch.bfloat16),
    ('float32', 'bfloat16', None),
])
def test_cuda_autocasts_unless_float32_is_asked(cpu, asked, dtype,
                                                expected):
    cpu(None)  # the CPU plays no part
    assert resolve_precision(asked, 'cuda', dtype).dtype == expected


@pytest.mark.parametrize('call, message', [
    (lambda: resolve_precision('fp32', 'cpu'),
     r"precision must be one of \('auto', 'bfloat16', 'float32'\), got "
     r"'fp32'"),
    (lambda: resolve_precision('auto', 'mps'),
     r"device_type must be one of \('cpu', 'cuda'\), got 'mps'"),
    (lambda: resolve_precision('auto', 'cpu', 'float16'),
     r"dtype 'float16' autocasts on CUDA only"),
])
def test_refusals_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_an_unknown_environment_value_is_refused(monkeypatch):
    monkeypatch.setenv(CPU_PRECISION_ENV, 'bf16')
    with pytest.raises(ValueError, match=r"RANDSAC_CPU_PRECISION must be one "
                       r"of \('bfloat16', 'float32'\), got 'bf16'"):
        resolve_precision('auto', 'cpu')


def test_cpu_precision_holds_every_cpu_to_one_precision_and_restores(
        cpu):
    """What a study whose runs are made on several machines relies on: a
    CPU with bf16 instructions computes in float32 within it, and after it
    in its own precision again."""
    cpu('AVX512-BF16')
    with precision.cpu_precision('float32'):
        assert resolve_precision('auto', 'cpu').dtype is None
    assert CPU_PRECISION_ENV not in os.environ
    assert resolve_precision('auto', 'cpu').dtype == torch.bfloat16
    with precision.cpu_precision(None):  # as before
        assert resolve_precision('auto', 'cpu').dtype == torch.bfloat16


def test_cpu_precision_never_overrides_the_variable_silently(monkeypatch):
    monkeypatch.setenv(CPU_PRECISION_ENV, 'bfloat16')
    with pytest.raises(ValueError, match="cpu_precision 'float32' disagrees "
                       'with RANDSAC_CPU_PRECISION=bfloat16: unset the '
                       'variable or ask for its precision'):
        with precision.cpu_precision('float32'):
            pass
    with precision.cpu_precision('bfloat16'):  # the same: no conflict
        assert resolve_precision('auto', 'cpu').dtype == torch.bfloat16
    assert os.environ[CPU_PRECISION_ENV] == 'bfloat16'
    with pytest.raises(ValueError, match=r"cpu_precision must be one of "
                       r"\('bfloat16', 'float32'\), got 'auto'"):
        with precision.cpu_precision('auto'):
            pass


@pytest.mark.parametrize('capabilities, expected', [
    (dict(amx_bf16=True, avx512_bf16=True), 'AMX'),
    (dict(amx_bf16=False, avx512_bf16=True), 'AVX512-BF16'),
    (dict(amx_bf16=False, avx512_bf16=False, avx2=True), None),
    (dict(architecture='aarch64', bf16=True), 'Arm BF16'),
    (dict(architecture='aarch64', bf16=False), None),
])
def test_instructions_are_read_from_torch(monkeypatch, capabilities,
                                          expected):
    """Detected from torch's public view of the CPU, AMX first."""
    monkeypatch.setattr(torch.cpu, 'get_capabilities', lambda: capabilities)
    assert precision.cpu_bf16_instructions() == expected


def test_the_suite_runs_in_float32():
    """The recorded losses are float32's, whatever this CPU computes."""
    assert resolve_precision('auto', 'cpu').dtype is None


@pytest.mark.skipif(precision.cpu_bf16_instructions() is None,
                    reason='this CPU has no bf16 instructions')
def test_a_bf16_step_is_float32s_within_tolerance(monkeypatch):
    """The configs' 'auto' on this CPU (bf16) against float32: the same
    RandSAC model and batch give a loss within 1% and gradients whose
    direction agrees to a cosine of 0.99 (bf16 keeps 8 bits of mantissa,
    about 2 to 3 significant digits per op)."""
    from randsac_mm.engine import AutocastOptimWrapper

    from .models.helpers import build_model
    from .models.test_randsac import fixed_batch
    monkeypatch.delenv(CPU_PRECISION_ENV)
    images, samples = fixed_batch()
    runs = {}
    for asked in ('auto', 'float32'):
        model = build_model('skip').train()
        wrapper = AutocastOptimWrapper(
            optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
            precision=asked)
        with wrapper.optim_context(model):
            loss = model.loss(images, samples)['loss']
        loss.backward()
        grads = torch.cat([p.grad.flatten() for p in model.parameters()
                           if p.grad is not None])
        runs[asked] = (wrapper.decided[1].dtype, loss.item(), grads)
    (bf16, loss16, grad16), (fp32, loss32, grad32) = runs.values()
    assert (bf16, fp32) == (torch.bfloat16, None)
    assert loss16 != loss32  # it did run in bf16
    assert abs(loss16 - loss32) < 0.01 * loss32, (loss16, loss32)
    cosine = torch.nn.functional.cosine_similarity(grad16, grad32, dim=0)
    assert cosine > 0.99, cosine
