"""python -m experiments.benchmarks.step_profile: one training step timed
and profiled, its top entries and their shares written after each mode."""
import json
import math
import re
from types import SimpleNamespace

import pytest
import torch
from torch.autograd import DeviceType

from experiments.benchmarks.step_profile import markdown, profile_rows

from ...conftest import run_tool


class FakeProfile:
    """What ``profile_rows`` reads of a profiler: ``key_averages()``, each
    event (key, count, microseconds, device) on the CPU or the GPU."""

    def __init__(self, events):
        self.events = [SimpleNamespace(key=key, count=count,
                                       self_device_time_total=us,
                                       self_cpu_time_total=us,
                                       device_type=getattr(DeviceType, dev),
                                       is_user_annotation=key.startswith(
                                           'Optimizer.'))
                       for key, count, us, dev in events]

    def key_averages(self):
        return self.events


def test_entries_are_ranked_per_step_with_their_share_of_busy_time():
    prof = FakeProfile([('gelu', 4, 2000.0, 'CUDA'), ('gemm', 6, 6000.0,
                                                      'CUDA'),
                        ('idle', 2, 0.0, 'CUDA'), ('copy', 2, 2000.0, 'CUDA')])
    rows, busy, operators = profile_rows(prof, 'cuda', steps=2, top=2)
    assert busy == 5.0  # 10 ms of device time over 2 steps
    assert [r['name'] for r in rows] == ['gemm', 'gelu']
    assert rows[0] == dict(name='gemm', calls=3, ms=3.0, share=0.6)
    assert rows[1]['share'] == 0.2
    assert operators == []
    rows, _, operators = profile_rows(prof, 'cpu', steps=1, top=10)
    assert 'idle' not in [r['name'] for r in rows]  # no time: not listed
    assert operators == []


def test_a_kernel_is_counted_once_not_again_as_its_operator():
    # On a GPU the operator that launched a kernel carries the kernel's
    # time as its own self device time: the first H200 profile counted
    # both and gave the device busy 190% of the wall time.
    prof = FakeProfile([('aten::mm', 2, 6000.0, 'CPU'),
                        ('nvjet_gemm', 2, 6000.0, 'CUDA'),
                        ('aten::gelu', 1, 2000.0, 'CPU'),
                        ('gelu_kernel', 1, 2000.0, 'CUDA'),
                        ('aten::view', 3, 0.0, 'CPU'),
                        # A record_function range on the device's track.
                        ('Optimizer.step#AdamW.step', 1, 1000.0, 'CUDA')])
    rows, busy, operators = profile_rows(prof, 'cuda', steps=1, top=10)
    assert busy == 8.0
    assert [r['name'] for r in rows] == ['nvjet_gemm', 'gelu_kernel']
    assert [(r['name'], r['share']) for r in operators] == [
        ('aten::mm', 0.75), ('aten::gelu', 0.25)]


def test_the_table_names_each_mode_and_escapes_pipes():
    mode = dict(first_step_s=41.0, ms_per_step=300.0, images_per_s=1706.7,
                tflops=231.6, mfu=0.234, profiled_ms_per_step=310.0,
                device_busy_ms_per_step=280.0, device_busy_share=0.9,
                top=[dict(name='a|b', calls=3, ms=1.5, share=0.25)],
                top_operators=[dict(name='aten::mm', calls=2, ms=4.0,
                                    share=0.5)])
    text = markdown(dict(config='configs/x.py', batch_size=512,
                         machine=dict(gpu='NVIDIA H100'), device='cuda',
                         commit='abc1234', setting='vit-b-in1k', steps=20,
                         warmup=5, profiled_steps=3,
                         modes_run=['eager', 'compiled'], attention=[],
                         modes=dict(eager=mode,
                                    compiled=dict(mode, mfu=None))))
    assert '## eager' in text and '## compiled' in text
    assert 'MFU 23.4%' in text and 'MFU -' in text
    assert '| `a\\|b` | 3 | 1.50 | 25.0% |' in text
    assert '--modes eager compiled' in text and 'CUDA kernels' in text
    assert text.count('Top operators by the time of the kernels') == 2
    assert '| `aten::mm` | 2 | 4.00 | 50.0% |' in text


def test_a_cpu_step_is_timed_profiled_and_written(tmp_path):
    run_tool(['-m', 'experiments.benchmarks.step_profile', '--setting',
              'vit-t-cifar', '--batch-size', '2', '--steps', '2',
              '--warmup', '1', '--profile-steps', '1', '--top', '4',
              '--device', 'cpu', '--threads', '1', '--out', tmp_path])
    result = json.loads((tmp_path / 'step_profile.json').read_text())
    assert result['device'] == 'cpu' and result['commit']
    assert result['threads'] == 1
    assert list(result['modes']) == ['eager']
    eager = result['modes']['eager']
    assert eager['ms_per_step'] > 0 and math.isfinite(eager['loss'])
    assert eager['mfu'] is None  # no peak known for a CPU
    assert len(eager['top']) == 4
    assert 0 < sum(r['share'] for r in eager['top']) <= 1
    assert any(r['name'] == 'aten::mm' for r in eager['top'])
    text = (tmp_path / 'step_profile.md').read_text()
    assert '## eager' in text
    # The command given makes the same measurement again.
    assert ('--setting vit-t-cifar --batch-size 2 --device cpu --threads 1 '
            '--steps 2 --warmup 1 --profile-steps 1 --modes eager`') in text


def test_each_named_kernel_is_an_entry_of_each_mode(tmp_path):
    run_tool(['-m', 'experiments.benchmarks.step_profile', '--setting',
              'vit-t-cifar', '--batch-size', '2', '--steps', '1',
              '--warmup', '1', '--profile-steps', '1', '--top', '3',
              '--device', 'cpu', '--attention', 'explicit', 'sdpa',
              '--out', tmp_path])
    result = json.loads((tmp_path / 'step_profile.json').read_text())
    assert list(result['modes']) == ['eager (explicit)', 'eager (sdpa)']
    assert result['attention'] == ['explicit', 'sdpa']
    assert [m['attention'] for m in result['modes'].values()] == [
        'explicit', 'sdpa']
    # The same model, images and steps: the two kernels' losses agree.
    explicit, sdpa = (m['loss'] for m in result['modes'].values())
    assert math.isclose(explicit, sdpa, rel_tol=1e-4)
    text = (tmp_path / 'step_profile.md').read_text()
    assert '--modes eager --attention explicit sdpa' in text
    assert '## eager (explicit)' in text and '## eager (sdpa)' in text


@pytest.mark.parametrize('argv, message', [
    (['--steps', '0'], 'argument --steps: must be >= 1, got 0'),
    (['--peak-tflops', '0'], 'argument --peak-tflops: must be > 0'),
    (['--attention', 'fast'], "argument --attention: 'fast' is no "
     "registered kernel; choose from ['explicit', 'flex', 'sdpa']"),
    (['--attention', 'sdpa', 'sdpa'], "argument --attention: each kernel "
     "once, got ['sdpa', 'sdpa']"),
    pytest.param(['--device', 'cuda'], '--device cuda: this torch sees no '
                 'CUDA device', marks=pytest.mark.skipif(
                     torch.cuda.is_available(), reason='a CUDA device')),
])
def test_bad_arguments_are_refused_before_anything_is_written(
        tmp_path, argv, message):
    with pytest.raises(pytest.fail.Exception, match=re.escape(message)):
        run_tool(['-m', 'experiments.benchmarks.step_profile', '--out',
                  tmp_path / 'out', *argv])
    assert not (tmp_path / 'out').exists()
