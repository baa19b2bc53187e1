"""tools/misc/gpu_window.sh: the one command of a GPU window. Its CPU form
(--smoke, --no-install) runs the parts and brings back what a GPU window
brings back, with the commit it is given; its refusals lose nothing."""
import json
import os
import os.path as osp
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

from experiments.benchmark_io import COMMIT_VARIABLE
from randsac_mm.models.attention.numerical_check import check_labels

from ..conftest import REPO_ROOT, run_tool
from ..data_factory import write_mnist

WINDOW = 'tools/misc/gpu_window.sh'
# This Python as the window names it (X.Y): its wheel folders' names.
PY = '%d.%d' % sys.version_info[:2]


def window(*args, root=REPO_ROOT, env=None):
    return subprocess.run(
        ['bash', os.path.join(root, WINDOW), *map(str, args)], cwd=root,
        capture_output=True, text=True, timeout=60,
        env={**os.environ, 'PYTHON': sys.executable, **(env or {})})


@pytest.mark.parametrize('args, message', [
    (['OUT', '9', 'acceptance', 'mfu'],
     "PART 'mfu' unknown; choose from profile, kernels, acceptance, speed, "
     'fit, ops, transfer, study'),
    (['OUT', '0'], 'MINUTES must be a whole number of minutes >= 1'),
    (['OUT', '2.5'], 'MINUTES must be a whole number'),
    (['--fast', 'OUT'], 'unknown option --fast (allowed: --smoke'),
    ([], 'usage: RANDSAC_COMMIT=<commit> bash tools/misc/gpu_window.sh'),
])
def test_bad_arguments_are_refused_before_anything_runs(tmp_path, args,
                                                        message):
    args = [str(tmp_path / 'out') if a == 'OUT' else a for a in args]
    proc = window(*args)
    assert proc.returncode == 2 and message in proc.stderr
    assert not (tmp_path / 'out').exists()


def test_a_copy_without_git_needs_the_commit(tmp_path):
    copy = tmp_path / 'copy'
    (copy / 'tools' / 'misc').mkdir(parents=True)
    shutil.copy(os.path.join(REPO_ROOT, WINDOW), copy / WINDOW)
    env = {'GIT_CEILING_DIRECTORIES': str(tmp_path)}
    proc = window('--no-install', tmp_path / 'out', root=copy, env=env)
    assert proc.returncode == 2
    assert 'this copy has no git, so RANDSAC_COMMIT must name' in proc.stderr
    assert not (tmp_path / 'out').exists()


def test_what_the_parts_need_is_checked_before_anything_runs(tmp_path):
    proc = window('--no-install', '--data-root', tmp_path / 'nowhere',
                  tmp_path / 'out', '5', 'speed')
    assert proc.returncode == 2
    assert f"lacks: {tmp_path / 'nowhere' / 'train-images-idx3-ubyte'}[.gz]" \
        in proc.stderr
    assert not (tmp_path / 'out').exists()


def fake_node_python(tmp_path):
    """A node's Python that is this one, but whose pip only logs what it is
    asked to install (to ``pip.log``), which logs the downstream import
    check (to ``imports.log``) instead of importing mmdet, and which stops
    the window at its first use of the installed copy (exit code 3)."""
    log = tmp_path / 'pip.log'
    python = tmp_path / 'python'
    python.write_text(
        '#!/bin/bash\n'
        f'if [[ $1 == -m && $2 == pip ]]; then echo "${{*:3}}" >> {log}; '
        'exit 0; fi\n'
        'if [[ $* == *randsac_mm.downstream* ]]; then echo "$*" >> '
        f'{tmp_path / "imports.log"}; exit 0; fi\n'
        'if [[ $1 == -c && $2 == *randsac_mm.registration* ]]; then exit 3; '
        'fi\n'
        f'exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    return str(python), log


def node_wheelhouse(tmp_path, cuda_for, downstream=False):
    """A wheelhouse for this Python: mmcv-lite, randsac_mm's own wheel and
    a package no environment has; with ``cuda_for`` ('py3.11-torch2.13.0'),
    mmcv with CUDA ops in ``mmcv-cuda/<cuda_for>``; with ``downstream``,
    a wheel no environment has and mmdet's (installed here) in
    ``py<X.Y>-downstream`` (make wheelhouse-downstream)."""
    import torch
    house = tmp_path / 'wheelhouse'
    plain = house / f'py{PY}'
    plain.mkdir(parents=True)
    for name in ('mmcv_lite-2.1.0-py2.py3-none-any.whl',
                 'randsac_mm-1.0.0-py3-none-any.whl',
                 'nowhere_installed-1.0-py3-none-any.whl'):
        (plain / name).write_bytes(b'')
    if cuda_for:
        cuda = house / 'mmcv-cuda' / cuda_for.format(
            torch=torch.__version__.split('+')[0])
        cuda.mkdir(parents=True)
        (cuda / 'mmcv-2.1.0-cp311-cp311-linux_x86_64.whl').write_bytes(b'')
    if downstream:
        (house / f'py{PY}-downstream').mkdir()
        for name in ('mmdet-3.3.0-py3-none-any.whl',
                     'nowhere_downstream-1.0-py3-none-any.whl'):
            (house / f'py{PY}-downstream' / name).write_bytes(b'')
    return house


def test_a_node_gets_mmcv_with_cuda_ops_built_for_its_python_and_torch(
        tmp_path):
    python, log = fake_node_python(tmp_path)
    house = node_wheelhouse(tmp_path, f'py{PY}-torch{{torch}}',
                            downstream=True)
    proc = window('--wheelhouse', house, tmp_path / 'out', '5', 'ops',
                  env={'PYTHON': python})
    assert proc.returncode == 2  # the fake stops it after installing
    plain = house / f'py{PY}'
    cuda_wheel, = (house / 'mmcv-cuda').glob('*/mmcv-*.whl')
    installs = log.read_text().splitlines()
    # What the node lacks, mmcv-lite and randsac_mm's own wheel left out,
    # the transfers' packages too; mmcv with CUDA ops over any mmcv there;
    # the copy.
    assert installs[0].endswith(
        ' ' + str(plain / 'nowhere_installed-1.0-py3-none-any.whl') + ' ' +
        str(house / f'py{PY}-downstream' /
            'nowhere_downstream-1.0-py3-none-any.whl'))
    assert 'mmdet-3.3.0' not in installs[0]  # installed here
    assert 'installing 2 of the 4 carried wheels' in proc.stdout
    # Then the transfers' stack, imported as their configs import it.
    [check] = (tmp_path / 'imports.log').read_text().splitlines()
    assert 'import mmdet, mmseg, randsac_mm.downstream' in check
    assert 'mmcv_lite' not in log.read_text()
    assert '--force-reinstall' in installs[1]
    assert installs[1].endswith(str(cuda_wheel))
    assert installs[2].endswith('-e .') and len(installs) == 3
    assert "in mmcv-lite's place" in proc.stdout


def test_a_transfer_without_the_downstream_wheels_is_refused_first(
        tmp_path):
    python, log = fake_node_python(tmp_path)
    house = node_wheelhouse(tmp_path, f'py{PY}-torch{{torch}}')
    proc = window('--wheelhouse', house, tmp_path / 'out', '5', 'transfer',
                  env={'PYTHON': python})
    assert proc.returncode == 2
    assert (f"the wheels of mmseg, mmdet and mlxtend in {house}/py{PY}-"
            f'downstream (for transfer: make wheelhouse-downstream '
            f'NODE_PYTHON=python{PY})') in proc.stderr
    assert not log.exists() and not (tmp_path / 'out').exists()


def stand_in_python(tmp_path):
    """A Python that stands in for the modules of the parts profile,
    kernels, ops and transfer: it logs each call (its arguments and the
    commit it was given) to ``called`` and writes, in the call's --out,
    the files the module writes, holding the call's arguments."""
    called = tmp_path / 'called'
    python = tmp_path / 'python'
    python.write_text(
        '#!/bin/bash\n'
        'if [[ $1 == -m && $2 == experiments.benchmarks.* ]]; then\n'
        f'  call="${{*:2}}"; echo "$call commit=${COMMIT_VARIABLE}" >> '
        f'{called}\n'
        '  while [[ $1 != --out ]]; do shift; done; mkdir -p "$2"\n'
        '  case $call in\n'
        '    *step_profile*) files="step_profile.json step_profile.md";;\n'
        '    *mmcv_cuda_ops*) files=mmcv_cuda_ops.json;;\n'
        '    *transfer_on_device*) files="transfer_on_device.json '
        'transfer_on_device.md pretrain.log upernet.log";;\n'
        '  esac\n'
        '  for f in $files; do echo "$call" > "$2/$f"; done; exit 0\n'
        'fi\n'
        f'exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    return python, called


def test_each_part_runs_its_module_and_brings_back_what_it_wrote(
        tmp_path):
    """The parts' wiring: each module run with the smoke's arguments, the
    commit and a scratch folder, its files brought back under their
    names, its logs packed, and past 8 files all but the log in one
    archive. (The modules themselves run in their own tests with these
    arguments: tests/experiments/benchmarks/test_step_profile.py,
    test_transfer_on_device.py; ops runs whole in the smoke window.)"""
    python, called = stand_in_python(tmp_path)
    out = tmp_path / 'out'
    proc = window('--smoke', '--no-install', out, '5', 'profile', 'kernels',
                  'ops', 'transfer',
                  env={'PYTHON': str(python), COMMIT_VARIABLE: 'abcdef1',
                       'GIT_DIR': str(tmp_path / 'no-git')})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calls = called.read_text().splitlines()
    assert [c.split()[0] for c in calls] == [
        'experiments.benchmarks.step_profile',
        'experiments.benchmarks.step_profile',
        'experiments.benchmarks.mmcv_cuda_ops',
        'experiments.benchmarks.transfer_on_device']
    assert all(c.endswith(' commit=abcdef1') for c in calls)
    profile, kernels, ops, transfer = (c.split()[1:-1] for c in calls)
    assert profile == [
        '--device', 'cpu', '--setting', 'vit-t-cifar', '--batch-size', '4',
        '--steps', '2', '--warmup', '1', '--profile-steps', '1', '--modes',
        'eager', '--out', str(out)]
    assert kernels[-5:-1] == ['--attention', 'explicit', 'sdpa', '--out']
    assert kernels[-1].endswith('/kernels')
    assert ops == ['--device', 'cpu', '--out', str(out)]
    assert transfer[:3] == ['--device', 'cpu', '--smoke']
    assert transfer[transfer.index('--out') + 1].endswith('/transfer')
    assert '--work-dir' in transfer
    # 9 files: all but the log packed.
    assert sorted(os.listdir(out)) == ['window.log', 'window_files.tar.gz']
    with tarfile.open(out / 'window_files.tar.gz') as files:
        files.extractall(out / 'unpacked', filter='data')
    unpacked = out / 'unpacked'
    assert sorted(os.listdir(unpacked)) == [
        'mmcv_cuda_ops.json', 'step_profile.json', 'step_profile.md',
        'step_profile_kernels.json', 'step_profile_kernels.md',
        'transfer_logs.tar.gz', 'transfer_on_device.json',
        'transfer_on_device.md']
    # Each part's files its own: the kernels' under their own names.
    assert '--attention' in (unpacked / 'step_profile_kernels.json'
                             ).read_text()
    assert '--attention' not in (unpacked / 'step_profile.json').read_text()
    with tarfile.open(unpacked / 'transfer_logs.tar.gz') as logs:
        assert sorted(osp.basename(n) for n in logs.getnames()) == [
            'pretrain.log', 'upernet.log']
    assert 'all but window.log packed in window_files.tar.gz' in \
        (out / 'window.log').read_text()


def test_a_node_without_cuda_ops_for_its_torch_is_told_how_to_make_them(
        tmp_path):
    python, log = fake_node_python(tmp_path)
    # Built for another torch: of no use to this one.
    house = node_wheelhouse(tmp_path, f'py{PY}-torch0.0.1')
    proc = window('--wheelhouse', house, tmp_path / 'out', '5', 'ops',
                  env={'PYTHON': python})
    assert proc.returncode == 2
    assert f'make node-mmcv NODE_PYTHON=python{PY} NODE_TORCH=' in \
        proc.stderr
    assert f'made: py{PY}-torch0.0.1' in proc.stderr
    assert not log.exists() and not (tmp_path / 'out').exists()
    # Without ops the window goes on with mmcv-lite, and says so.
    data = write_mnist(str(tmp_path / 'fmnist'), train=4, test=2)
    proc = window('--wheelhouse', house, '--data-root', data,
                  tmp_path / 'out', '5', 'speed', env={'PYTHON': python})
    installs = log.read_text().splitlines()
    assert 'mmcv-lite (no compiled ops)' in proc.stdout
    assert 'mmcv_lite-2.1.0-py2.py3-none-any.whl ' in installs[0]
    assert installs[1].endswith('-e .') and len(installs) == 2


@pytest.fixture(scope='module')
def smoke(tmp_path_factory):
    """The smoke window's $OUT and output: the parts whose modules run
    whole only here (acceptance; fit's copies in processes of their own;
    ops), once; the tests below read what it brought back (the acceptance
    run's too). The other parts' modules run in their own tests, their
    wiring in the one above."""
    tmp_path = tmp_path_factory.mktemp('window')
    data = write_mnist(str(tmp_path / 'fmnist'), train=40, test=20)
    out = tmp_path / 'out'
    # As on a node: no git (GIT_DIR names none), the commit given.
    proc = run_tool(['bash', WINDOW, '--smoke', '--no-install',
                     '--data-root', data, out, '8', 'acceptance', 'fit',
                     'ops'],
                    env={COMMIT_VARIABLE: 'abcdef1', 'GIT_DIR': str(
                        tmp_path / 'no-git')}, timeout=420)
    return out, proc


# The smoke window's run (its fixture, 2 to 5 minutes: its compiles when
# torch's cache is cold, as on a new machine) is the suite's longest:
# conftest starts it first.
@pytest.mark.heavy(minutes=5)
def test_the_smoke_window_brings_back_each_part_with_the_commit(smoke):
    out, proc = smoke
    # What comes back: plain files, few enough for a lent machine's $OUT.
    assert sorted(os.listdir(out)) == [
        'acceptance.json', 'acceptance.md', 'acceptance_logs.tar.gz',
        'mmcv_cuda_ops.json', 'paper_scale_fit.json', 'window.log']
    acceptance = json.loads((out / 'acceptance.json').read_text())
    assert acceptance['environment']['commit'] == 'abcdef1'
    fit = json.loads((out / 'paper_scale_fit.json').read_text())
    assert [(r['path'], r['processes']) for r in fit['rows']] == [
        ('on_device', 2)]
    assert len(fit['rows'][0]['per_process']) == 2
    assert fit['commit'] == 'abcdef1' and fit['device'] == 'cpu'
    ops = json.loads((out / 'mmcv_cuda_ops.json').read_text())
    assert ops['commit'] == 'abcdef1' and ops['device'] == 'cpu'
    assert [r['op'] for r in ops['ops']] == [
        'roi_align (sampling_ratio 0)', 'roi_align (sampling_ratio 2)',
        'nms (IoU 0.5)']
    assert ops['passed'] and ops['ops'][2]['same_kept']
    log = (out / 'window.log').read_text()
    assert 'images/s' in log
    assert 'done; in' in proc.stdout


# The acceptance run of a GPU node (``python -m
# experiments.benchmarks.gpu_acceptance --smoke``), as the window ran it:
# the same path as on a GPU (kernel check, tools/train.py eager and
# compiled on ImageNet-format JPEGs, the data pipeline, the downstream
# backbones) with a tiny model, on the CPU. Read from the window's run, not
# run again (a minute and a half here).

@pytest.mark.heavy
def test_the_kernel_check_passes_on_the_cpu(smoke):
    rows = json.loads((smoke[0] / 'acceptance.json').read_text())[
        'attention']
    checked = [r for r in rows if 'skipped' not in r]
    assert {r['kernel'] for r in checked} == {'sdpa:flash', 'sdpa:math',
                                              'explicit'}
    assert {(r['rows'], r['length']) for r in checked} == {
        ('normal', 63), ('normal', 64), ('low-lse', 63), ('low-lse', 64)}
    assert all(r['ok'] and r['nan'] == 0 for r in checked)
    # Every registered kernel's every variant is a row; the CPU lacks
    # flex's backward and the GPU-only SDPA backends.
    assert {r['kernel'] for r in rows} == set(check_labels())
    skipped = {r['kernel']: r['skipped'] for r in rows if 'skipped' in r}
    assert set(skipped) == {'flex', 'sdpa:efficient', 'sdpa:cudnn'}
    assert skipped['flex'] == 'flex_attention has no backward on a CPU'


@pytest.mark.heavy
def test_tools_train_runs_eager_and_compiled_to_the_same_losses(smoke):
    out, _ = smoke
    train = json.loads((out / 'acceptance.json').read_text())['train']
    assert train['batch_size'] == 8 and train['images'] == 32
    assert set(train['runs']) == {'eager', 'compiled'}
    with tarfile.open(out / 'acceptance_logs.tar.gz') as logs:
        assert sorted(logs.getnames()) == ['train_compiled.log',
                                           'train_eager.log']
        for name, run in train['runs'].items():
            # 2 epochs of 4 iterations: at least the 6 asked for.
            assert run['iterations'] == 8 and run['measured'] == 6, name
            assert run['images_per_s'] == pytest.approx(
                8 / run['ms_per_step'] * 1e3)
            assert 0 <= run['data_wait_share'] <= 1
            assert run['mfu'] is None  # no peak known for a CPU
            log = logs.extractfile(f'train_{name}.log').read().decode()
            assert 'Epoch(train) [2][4/4]' in log
    # The same seed and data: compiling changes the arithmetic's order only.
    assert train['loss_difference'] < 1e-4
    assert train['memory_model_gib'] > 0
    assert '[acceptance] compiled: ' in (out / 'window.log').read_text()


@pytest.mark.heavy
def test_data_and_backbones_are_measured_and_tabled(smoke):
    out, _ = smoke
    result = json.loads((out / 'acceptance.json').read_text())
    data = result['data']
    assert data['worker_images_per_s'] > 0
    assert 'RandSACSegmentGenerator' in data['worker_ms_per_step']
    assert set(data['workers_needed']) == {'eager', 'compiled'}
    assert set(result['backbones']) == {'upernet', 'mask-rcnn'}
    assert result['backbones']['mask-rcnn']['window_size'] == 14
    text = (out / 'acceptance.md').read_text()
    for heading in ('## Masked attention kernels', '## Training',
                    '## Feeding the GPU', '## Downstream backbones'):
        assert heading in text
    assert result['environment']['gpu'] is None and result['smoke']
    # Written after each part, so a run stopped early keeps what it has.
    assert result['parts_done'] == ['check', 'train eager', 'train', 'data',
                                    'backbones']
    assert 'Parts done: check, train eager, train, data, backbones.' in text
    # What a reader runs again: the command the window ran, in its folder.
    [ran] = re.findall(r'\] acceptance: \S+ (-m .* --smoke) \(at most',
                       (out / 'window.log').read_text())
    assert result['command'] == 'python ' + ran
