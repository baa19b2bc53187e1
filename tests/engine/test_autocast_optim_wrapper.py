import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from randsac_mm.engine import AutocastOptimWrapper


def test_forward_runs_in_bf16_and_steps():
    model = torch.nn.Linear(8, 4)
    wrapper = AutocastOptimWrapper(
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        precision='bfloat16')
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


@pytest.mark.parametrize('precision, forced, expected', [
    ('auto', 'float32', torch.float32),  # the suite's: float32 on a CPU
    ('auto', 'bfloat16', torch.bfloat16),
    ('float32', 'bfloat16', torch.float32),  # the config's word wins
    ('bfloat16', 'float32', torch.bfloat16),
])
def test_precision_decides_autocast_on_a_cpu(monkeypatch, precision, forced,
                                             expected):
    from randsac_mm import precision as module
    monkeypatch.setattr(module, 'cpu_bf16_instructions', lambda: 'AMX')
    monkeypatch.setenv(module.CPU_PRECISION_ENV, forced)
    model = torch.nn.Linear(8, 4)
    wrapper = AutocastOptimWrapper(
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        precision=precision)
    with wrapper.optim_context(model):
        assert model(torch.randn(2, 8)).dtype == expected
    with pytest.raises(ValueError, match="precision must be one of"):
        AutocastOptimWrapper(
            optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
            precision='fp32')


def test_auto_follows_the_cpus_bf16_and_logs_why_once(monkeypatch):
    from mmengine.logging import MMLogger

    from randsac_mm import precision as module
    monkeypatch.delenv(module.CPU_PRECISION_ENV)
    lines = []
    logger = MMLogger.get_current_instance()
    monkeypatch.setattr(logger, 'log', lambda level, line: lines.append(line))
    model = torch.nn.Linear(8, 4)
    for instructions, expected in ((None, torch.float32),
                                   ('AVX512-BF16', torch.bfloat16)):
        monkeypatch.setattr(module, 'cpu_bf16_instructions',
                            lambda: instructions)
        lines.clear()
        wrapper = AutocastOptimWrapper(
            optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
        for _ in range(2):
            with wrapper.optim_context(model):
                assert model(torch.randn(2, 8)).dtype == expected
        assert len(lines) == 1, lines  # decided at the first step only
    assert lines == ['precision: bfloat16 autocast on the CPU: it computes '
                     'bf16 natively (AVX512-BF16)']


def test_fused_adamw_only_on_cuda():
    from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS

    import randsac_mm.engine  # noqa: F401  (registers)
    model = torch.nn.Linear(8, 4)
    constructor = OPTIM_WRAPPER_CONSTRUCTORS.build(dict(
        type='FusedAdamWConstructor',
        optim_wrapper_cfg=dict(type='OptimWrapper', optimizer=dict(
            type='AdamW', lr=1e-3))))
    cpu = constructor(model)  # torch's default AdamW
    assert not cpu.optimizer.defaults['fused']
    with FakeTensorMode(allow_non_fake_inputs=True):  # a CUDA model
        cuda = constructor(model.to('cuda'))
    assert cuda.optimizer.defaults['fused'] is True


@pytest.fixture
def fp32_precision():
    """Restores torch's float32 precision settings after the test."""
    saved = (torch.backends.cuda.matmul.fp32_precision,
             torch.backends.cudnn.conv.fp32_precision)
    yield
    (torch.backends.cuda.matmul.fp32_precision,
     torch.backends.cudnn.conv.fp32_precision) = saved


@pytest.mark.parametrize('tf32, expected', [(True, 'tf32'), (False, 'none')])
def test_tf32_is_set_once_through_the_current_api(fp32_precision, tf32,
                                                  expected):
    import warnings
    torch.backends.cuda.matmul.fp32_precision = 'none'
    model = torch.nn.Linear(8, 4)
    with warnings.catch_warnings():
        # torch warns when the deprecated allow_tf32 flags are touched.
        warnings.simplefilter('error')
        wrapper = AutocastOptimWrapper(
            optimizer=torch.optim.SGD(model.parameters(), lr=0.1), tf32=tf32)
        assert torch.backends.cuda.matmul.fp32_precision == expected
        torch.backends.cuda.matmul.fp32_precision = 'none'
        with wrapper.optim_context(model):  # a step sets nothing
            model(torch.randn(2, 8))
        assert torch.backends.cuda.matmul.fp32_precision == 'none'
    if tf32:
        assert torch.backends.cudnn.conv.fp32_precision == 'tf32'
