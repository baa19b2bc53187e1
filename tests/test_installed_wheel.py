"""randsac_mm as a wheel installs it: built with ``pip wheel``, installed
into a temporary target, and run from a folder outside the clone, so
nothing can come from the checkout.

The wheel carries the configs, the metafile and every tool but the
checkout's maintenance (tools/misc/) under ``randsac_mm/.mim`` (mim's
layout), and mim runs its tools from there.
"""
import json
import os
import os.path as osp
import subprocess
import sys
import zipfile
from glob import glob

import pytest

from .conftest import REPO_ROOT
from .tool_runs import script_module

pytestmark = pytest.mark.heavy

DEMO = 'randsac_vit-mini-p4_square-16to4_digits'


@pytest.fixture(scope='module')
def installed(tmp_path_factory):
    """(target folder with the installed wheel, a folder outside the clone,
    the environment that puts the target first on the path, the wheel)."""
    root = tmp_path_factory.mktemp('wheel')
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX='1')
    # The wheel the wheelhouse ships (make wheelhouse): built from a copy of
    # what setup.py reads, so a file it reads but the copy lacks fails here.
    (root / 'dist').mkdir()
    wheelhouse = script_module('tools/misc/wheelhouse.py')
    wheel = wheelhouse.build_own_wheel(str(root / 'dist'))
    target = root / 'site'
    subprocess.run(
        [sys.executable, '-m', 'pip', 'install', '--no-deps', '-q',
         '--target', str(target), str(wheel)],
        check=True, env=env, capture_output=True)
    outside = root / 'elsewhere'
    outside.mkdir()
    # The target first: its randsac_mm, not the clone's editable one.
    run_env = dict(os.environ, PYTHONPATH=str(target))
    return target, outside, run_env, wheel


def run_outside(installed, code_or_args, timeout=600):
    _, outside, env, _ = installed
    args = ['-c', code_or_args] if isinstance(code_or_args, str) \
        else code_or_args
    return subprocess.run([sys.executable, *args], cwd=outside, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_the_wheel_ships_configs_metafile_and_every_user_tool(installed):
    names = zipfile.ZipFile(installed[3]).namelist()
    assert 'randsac_mm/.mim/configs/metafile.yml' in names
    assert f'randsac_mm/.mim/configs/demo/{DEMO}.py' in names
    assert 'randsac_mm/analysis/paper.py' in names
    assert 'randsac_mm/datasets/meta/imagenet100.txt' in names
    # Every file under tools/ but tools/misc/ (setup.py's CHECKOUT_ONLY).
    tools = {osp.relpath(p, REPO_ROOT) for p in glob(
        osp.join(REPO_ROOT, 'tools', '**', '*'), recursive=True)
        if osp.isfile(p) and '__pycache__' not in p}
    shipped = {n[len('randsac_mm/.mim/'):] for n in names
               if n.startswith('randsac_mm/.mim/tools/')}
    assert 'tools/train.py' in shipped and 'tools/misc/wheelhouse.py' in tools
    assert shipped == {t for t in tools if not t.startswith('tools/misc/')}
    assert not any(n.startswith(('experiments/', 'tests/')) for n in names)
    # The license, declared and shipped.
    wheel = zipfile.ZipFile(installed[3])
    [license] = [n for n in names if n.endswith('.dist-info/licenses/LICENSE')]
    assert 'Apache License' in wheel.read(license).decode()
    [metadata] = [n for n in names if n.endswith('.dist-info/METADATA')]
    assert 'License: Apache-2.0' in \
        wheel.read(metadata).decode().splitlines()


def test_the_installed_library_finds_its_model_index(installed):
    proc = run_outside(installed, (
        'import json, mmpretrain, randsac_mm, randsac_mm.registration\n'
        'from randsac_mm.apis import build_model\n'
        f'model = build_model({DEMO!r}, seed=0)\n'
        'print(json.dumps(dict(file=randsac_mm.__file__, '
        "names=mmpretrain.list_models('*randsac*'), "
        'model=type(model).__name__)))'))
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found['file'].startswith(str(installed[0]))
    assert DEMO in found['names']
    assert 'randsac_vit-b_in1k' in found['names']
    assert found['model'] == 'RandSAC'


def test_the_shipped_get_flops_gives_the_installed_paper_figures(
        installed, tmp_path):
    """get_flops.py, run outside the clone, reads the paper's FLOPs from
    the installed metafile and configs."""
    mim = installed[0] / 'randsac_mm' / '.mim'
    config = mim / 'configs' / 'pretrain' / (
        'randsac_vit-tiny-p4_blob-11to5_transformer-skip_8xb64-amp-1600e_'
        'cifar10.py')
    out = tmp_path / 'flops.json'
    proc = run_outside(installed, [
        str(mim / 'tools' / 'analysis' / 'get_flops.py'), str(config),
        '--compare-architectures', '--out', str(out)])
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    paper = {r['architecture']: r['paper']
             for r in json.loads(out.read_text())['rows']}
    assert paper == {'two-stream': '499.60 M', 'transformer': '483.82 M',
                     'transformer-skip': '484.26 M'}


def test_mim_trains_the_demo_config_for_one_epoch(installed, tmp_path):
    pytest.importorskip('mim')
    work_dir = tmp_path / 'work'
    proc = run_outside(installed, [
        '-m', 'mim', 'train', 'randsac_mm', f'{DEMO}.py', '--gpus', '0',
        '--device', 'cpu', '--work-dir', str(work_dir),
        '--cfg-options', 'train_cfg.max_epochs=1',
        'train_dataloader.dataset.indices=64'])
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert osp.isfile(work_dir / 'epoch_1.pth')
    # The config and the script came from the installed package.
    assert str(installed[0]) in proc.stdout


def test_mim_tests_a_classifier_it_trained(installed, tmp_path):
    pytest.importorskip('mim')
    config = 'vit-mini-p4_1xb64-10e_digits.py'
    work_dir = tmp_path / 'work'
    common = ['--gpus', '0', '--device', 'cpu', '--work-dir', str(work_dir)]
    few = [f'{split}_dataloader.dataset.indices=64'
           for split in ('train', 'val', 'test')]
    proc = run_outside(installed, [
        '-m', 'mim', 'train', 'randsac_mm', config, *common,
        '--cfg-options', 'train_cfg.max_epochs=1', *few])
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    proc = run_outside(installed, [
        '-m', 'mim', 'test', 'randsac_mm', config, '--checkpoint',
        str(work_dir / 'epoch_1.pth'), *common, '--cfg-options', few[-1]])
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert 'accuracy/top1' in proc.stdout + proc.stderr
