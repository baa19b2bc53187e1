"""The device is chosen: the CPU only on purpose, and a GPU node whose CUDA
does not start stops the run with a message naming CUDA and the driver."""
import os
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
import torch

from randsac_mm.cli import device as device_module
from randsac_mm.cli.device import NoUsableCuda, cuda_report, use_device

from ..conftest import REPO_ROOT, free_port

MAIN = 'configs/randsac_vit-b_in1k.py'
no_cuda_here = pytest.mark.skipif(torch.cuda.is_available(),
                                  reason='checks a machine without CUDA')


def fake_nvidia_smi(monkeypatch, stdout='', returncode=0, found=True):
    monkeypatch.setattr(device_module.shutil, 'which',
                        lambda name: '/usr/bin/nvidia-smi' if found else None)
    monkeypatch.setattr(
        device_module.subprocess, 'run',
        lambda *a, **k: SimpleNamespace(stdout=stdout, stderr='',
                                        returncode=returncode))


def no_gpu(monkeypatch, built='13.0', warning=None):
    """torch as a GPU node with a broken CUDA sees it."""
    def is_available():
        if warning:
            import warnings
            warnings.warn(warning)
        return False
    monkeypatch.setattr(torch.cuda, 'is_available', is_available)
    monkeypatch.setattr(torch.version, 'cuda', built)


def test_the_report_names_torchs_cuda_the_driver_and_the_ways_out(
        monkeypatch):
    no_gpu(monkeypatch, warning='CUDA initialization: The NVIDIA driver on '
           'your system is too old (found version 12040).')
    fake_nvidia_smi(monkeypatch, stdout='550.54.15\n')
    report = cuda_report()
    assert report.startswith('no usable CUDA GPU: torch.cuda.is_available() '
                             'is False (torch: CUDA initialization: The '
                             'NVIDIA driver on your system is too old')
    assert f'torch {torch.__version__} was built for CUDA 13.0 (needs an ' \
        'NVIDIA driver >= 580.65.06)' in report
    assert 'NVIDIA driver: 550.54.15' in report
    assert report.endswith('pass --device cpu.')


@pytest.mark.parametrize('smi, shown', [
    (dict(found=False), 'nvidia-smi not found'),
    (dict(stdout='NVIDIA-SMI has failed because it couldn\'t communicate '
          'with the NVIDIA driver.', returncode=9),
     "nvidia-smi failed: NVIDIA-SMI has failed because it couldn't"),
])
def test_the_report_says_why_no_driver_version_is_known(monkeypatch, smi,
                                                        shown):
    no_gpu(monkeypatch)
    fake_nvidia_smi(monkeypatch, **smi)
    assert f'NVIDIA driver: {shown}' in cuda_report()


def test_a_cpu_only_torch_is_named(monkeypatch):
    no_gpu(monkeypatch, built=None)
    fake_nvidia_smi(monkeypatch, found=False)
    report = cuda_report()
    assert 'is a CPU-only build' in report
    assert 'install a CUDA build of torch' in report


def test_more_processes_than_gpus_is_refused(monkeypatch):
    monkeypatch.setattr(torch.cuda, 'is_available', lambda: True)
    monkeypatch.setattr(torch.cuda, 'device_count', lambda: 2)
    fake_nvidia_smi(monkeypatch, stdout='580.159.04')
    assert cuda_report(local_rank=1) is None
    report = cuda_report(local_rank=2)
    assert 'local rank 2, and only 2 GPU(s) are visible' in report
    with pytest.raises(NoUsableCuda, match='only 2 GPU'):
        use_device('cuda', local_rank=2)


def test_an_unknown_device_is_refused():
    with pytest.raises(ValueError, match=r"device must be one of \('cuda', "
                       r"'cpu'\), got 'gpu'"):
        use_device('gpu')


@pytest.mark.heavy
def test_cpu_hides_the_gpus_from_the_process():
    code = ('import os; from randsac_mm.cli.device import use_device; '
            "use_device('cpu'); import torch; "
            "print(repr(os.environ['CUDA_VISIBLE_DEVICES']), "
            'torch.cuda.is_available())')
    out = subprocess.run([sys.executable, '-c', code], cwd=REPO_ROOT,
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["''", 'False']


def run(args):
    env = dict(os.environ, PYTHON=sys.executable, PYTHONUNBUFFERED='1',
               PORT=str(free_port()))
    start = time.time()
    proc = subprocess.run(args, cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    return proc, time.time() - start


@no_cuda_here
@pytest.mark.parametrize('tool', ['tools/train.py', 'tools/test.py'])
@pytest.mark.heavy
def test_without_cuda_a_tool_stops_before_building_anything(tool, tmp_path):
    # test.py checks that the checkpoint exists first (it reads it later).
    checkpoint = tmp_path / 'x.pth'
    checkpoint.write_bytes(b'')
    extra = [MAIN] if tool == 'tools/train.py' else [MAIN, str(checkpoint)]
    proc, _ = run([sys.executable, tool, *extra, '--work-dir',
                   str(tmp_path / 'w')])
    assert proc.returncode == 2
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f'{tool}: error: no usable CUDA GPU: ')
    assert f'was built for CUDA {torch.version.cuda}' in last
    assert 'NVIDIA driver: ' in last and '--device cpu' in last
    assert 'Traceback' not in proc.stderr
    assert not (tmp_path / 'w').exists()  # no work dir, no log, no model


@no_cuda_here
@pytest.mark.parametrize('tool, positional', [
    ('tools/dist_train.sh', [MAIN, '1']),  # the case
    ('tools/dist_test.sh', [MAIN, 'x.pth', '1'])])
@pytest.mark.heavy
def test_dist_tools_on_a_cuda_less_machine_stop_naming_cuda(
        tmp_path, tool, positional):
    proc, _ = run([tool, *positional, '--work-dir', str(tmp_path / 'w')])
    assert proc.returncode == 2
    assert proc.stderr.startswith(f'{tool}: error: no usable CUDA GPU: ')
    assert len(proc.stderr.splitlines()) == 1  # no report per process
    assert 'backend' not in proc.stdout + proc.stderr  # never got to gloo
    assert not (tmp_path / 'w').exists()


@pytest.mark.parametrize('gpus', ['0', 'two', '--work-dir', '-1'])
@pytest.mark.heavy
def test_dist_train_wants_a_positive_process_count(gpus):
    proc, _ = run(['tools/dist_train.sh', MAIN, gpus])
    assert proc.returncode == 2
    assert proc.stderr == ('tools/dist_train.sh: error: GPUS must be a '
                           'positive integer (processes on this node), got '
                           f"'{gpus}'\n")


@pytest.mark.heavy
def test_dist_tools_let_cpu_processes_through_the_check(tmp_path):
    """With --device cpu the GPU check is skipped (torchrun then starts the
    processes; here they stop at a missing checkpoint)."""
    proc, _ = run(['tools/dist_test.sh', MAIN, str(tmp_path / 'no.pth'), '1',
                   '--device', 'cpu'])
    assert 'no usable CUDA GPU' not in proc.stderr
    assert "no such file" in proc.stdout + proc.stderr
