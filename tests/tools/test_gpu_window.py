"""tools/misc/gpu_window.sh: the one command of a GPU window. Its CPU form
(--smoke, --no-install) runs the parts and brings back what a GPU window
brings back, with the commit it is given; its refusals lose nothing."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from experiments.benchmark_io import COMMIT_VARIABLE

from ..conftest import REPO_ROOT, run_tool
from ..data_factory import write_mnist

WINDOW = 'tools/misc/gpu_window.sh'


def window(*args, root=REPO_ROOT, env=None):
    return subprocess.run(
        ['bash', os.path.join(root, WINDOW), *map(str, args)], cwd=root,
        capture_output=True, text=True, timeout=60,
        env=dict(os.environ, PYTHON=sys.executable, **(env or {})))


@pytest.mark.parametrize('args, message', [
    (['OUT', '9', 'acceptance', 'mfu'],
     "PART 'mfu' unknown; choose from profile, acceptance, speed, study"),
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


@pytest.mark.heavy
def test_the_smoke_window_brings_back_each_part_with_the_commit(tmp_path):
    data = write_mnist(str(tmp_path / 'fmnist'), train=40, test=20)
    out = tmp_path / 'out'
    # As on a node: no git (GIT_DIR names none), the commit given.
    proc = run_tool(['bash', WINDOW, '--smoke', '--no-install',
                     '--data-root', data, out, '6', 'profile', 'acceptance',
                     'speed'],
                    env={COMMIT_VARIABLE: 'abcdef1', 'GIT_DIR': str(
                        tmp_path / 'no-git')}, timeout=300)
    # What comes back: plain files, few enough for a lent machine's $OUT.
    assert sorted(os.listdir(out)) == [
        'acceptance.json', 'acceptance.md', 'acceptance_logs.tar.gz',
        'paper_scale_speed.json', 'step_profile.json', 'step_profile.md',
        'window.log']
    acceptance = json.loads((out / 'acceptance.json').read_text())
    speed = json.loads((out / 'paper_scale_speed.json').read_text())
    assert acceptance['environment']['commit'] == 'abcdef1'
    assert speed['commit'] == 'abcdef1' and speed['device'] == 'cpu'
    profile = json.loads((out / 'step_profile.json').read_text())
    assert profile['commit'] == 'abcdef1'
    assert list(profile['modes']) == ['eager', 'compiled']
    assert 'images/s' in (out / 'window.log').read_text()
    assert 'done; in' in proc.stdout
