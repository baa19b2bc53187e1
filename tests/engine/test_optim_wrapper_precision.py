"""--amp, --amp-dtype and --fp32: which optimizer wrapper and dtype each
device gets."""
import pytest
import torch
from mmengine.config import Config

from randsac_mm.engine.optim_wrapper_precision import enable_amp, force_float32


def config(**optim_wrapper):
    return Config(dict(optim_wrapper=dict(
        optimizer=dict(type='AdamW', lr=1e-3), **optim_wrapper)))


@pytest.fixture
def on_cuda(monkeypatch):
    """Makes enable_amp see a CUDA machine (it only reads the config)."""
    monkeypatch.setattr(torch.cuda, 'is_available', lambda: True)


@pytest.mark.parametrize('dtype', [None, 'bfloat16'])
def test_cpu_gets_bf16_autocast(dtype, monkeypatch):
    monkeypatch.setattr(torch.cuda, 'is_available', lambda: False)
    cfg = config()
    enable_amp(cfg, dtype)
    assert cfg.optim_wrapper.type == 'AutocastOptimWrapper'
    assert cfg.optim_wrapper.dtype == 'bfloat16'


def test_cpu_refuses_float16(monkeypatch):
    monkeypatch.setattr(torch.cuda, 'is_available', lambda: False)
    with pytest.raises(ValueError, match=r"--amp-dtype: 'float16' is not "
                       r"available on cpu; allowed: \('bfloat16',\)"):
        enable_amp(config(), 'float16')


def test_cuda_default_is_bf16_autocast(on_cuda):
    cfg = config()
    enable_amp(cfg)
    assert cfg.optim_wrapper.type == 'AutocastOptimWrapper'
    assert cfg.optim_wrapper.dtype == 'bfloat16'


def test_cuda_float16_is_mmpretrains_amp_with_loss_scaling(on_cuda):
    # From a pretraining config's wrapper: its autocast-only keys go, as
    # AmpOptimWrapper refuses them.
    cfg = config(type='AutocastOptimWrapper', dtype='bfloat16',
                 precision='auto', tf32=True)
    enable_amp(cfg, 'float16')
    assert cfg.optim_wrapper.type == 'AmpOptimWrapper'
    assert cfg.optim_wrapper.dtype == 'float16'
    assert cfg.optim_wrapper.loss_scale == 'dynamic'
    assert 'precision' not in cfg.optim_wrapper
    assert 'tf32' not in cfg.optim_wrapper


def test_amp_on_a_cpu_turns_on_a_cuda_only_wrapper(monkeypatch):
    monkeypatch.setattr(torch.cuda, 'is_available', lambda: False)
    cfg = config(type='AutocastOptimWrapper', dtype='bfloat16',
                 precision='auto')
    enable_amp(cfg)
    assert cfg.optim_wrapper.precision == 'bfloat16'


def test_cuda_bf16_drops_the_loss_scaler(on_cuda):
    cfg = config(type='AmpOptimWrapper', loss_scale=512.0)
    enable_amp(cfg, 'bfloat16')
    assert cfg.optim_wrapper.type == 'AutocastOptimWrapper'
    assert cfg.optim_wrapper.dtype == 'bfloat16'
    assert 'loss_scale' not in cfg.optim_wrapper


def test_other_wrappers_are_refused(on_cuda):
    with pytest.raises(ValueError, match='must be OptimWrapper'):
        enable_amp(config(type='MyWrapper'), 'bfloat16')


@pytest.mark.parametrize('optim_wrapper, expected', [
    (dict(type='AutocastOptimWrapper', dtype='bfloat16', precision='auto'),
     dict(type='AutocastOptimWrapper', dtype='bfloat16',
          precision='float32')),
    (dict(type='AmpOptimWrapper', loss_scale='dynamic', dtype='float16'),
     dict(type='OptimWrapper')),
    (dict(type='OptimWrapper'), dict(type='OptimWrapper')),
])
def test_fp32_turns_every_wrapper_to_float32(optim_wrapper, expected):
    cfg = config(**optim_wrapper)
    force_float32(cfg)
    assert {k: v for k, v in cfg.optim_wrapper.items()
            if k != 'optimizer'} == expected


def test_fp32_refuses_a_wrapper_it_does_not_know():
    with pytest.raises(ValueError, match=r"--fp32: optim_wrapper.type is "
                       r"'ApexOptimWrapper'; it must be OptimWrapper"):
        force_float32(config(type='ApexOptimWrapper'))
