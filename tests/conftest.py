import os
import os.path as osp
import re
import subprocess
import sys

import mmengine.config.config
import pytest
import torch

import randsac_mm.registration  # noqa: F401  (registers, as configs do)


def _unformatted(text, **kwargs):
    return text, False


# mmengine runs yapf over a config each time it logs, dumps or checkpoints
# it: five times per Runner, about 0.3 s each here, half the time of a
# one-iteration config test. In-process tests keep the text unformatted
# (still valid Python, all that Config.fromstring needs); the tools the
# tests launch format it as usual.
mmengine.config.config.FormatCode = _unformatted

# Under `pytest -n N` (as `make test` runs) the N workers share the cores:
# each gets its share of them, in process and in the tools it launches,
# so that no worker's threads wait on another's. The cores this process may
# run on, which the Makefile's `nproc` counts too (os.cpu_count() counts
# the machine's, more than a CPU-pinned container has; it is the fallback
# where there is no sched_getaffinity, off Linux).
CORES = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') \
    else (os.cpu_count() or 1)
THREADS_PER_WORKER = max(
    1, CORES // int(os.environ.get('PYTEST_XDIST_WORKER_COUNT', '1')))
torch.set_num_threads(THREADS_PER_WORKER)

REPO_ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))
DEMO_CLASSIFIER = osp.join(REPO_ROOT, 'configs', 'demo',
                           'vit-mini-p4_1xb64-10e_digits.py')


def tool_command(tool):
    """What follows ``python`` to run ``tool``: a script's path (a tool
    under tools/), or ``-m`` and a module (an experiment command,
    ``experiments.<name>``, which runs from the repository root)."""
    return [tool] if tool.endswith('.py') else ['-m', tool]


def run_tool(args, timeout=600, env=None):
    """Runs ``args`` from the repository root and returns its
    CompletedProcess: a tool under tools/ (``['tools/x.py', ...]``), an
    experiment command (``['-m', 'experiments.x', ...]``) or any command.

    Fails the test, with the tool's output, when it exits non-zero.
    """
    full_env = dict(os.environ, PYTHONUNBUFFERED='1', OMP_NUM_THREADS='1')
    full_env['PYTHON'] = sys.executable
    full_env.update(env or {})
    if args[0].endswith('.py') or args[0] == '-m':
        args = [sys.executable] + list(args)
    proc = subprocess.run(
        [str(a) for a in args], cwd=REPO_ROOT, env=full_env,
        capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        pytest.fail(f'{args} exited {proc.returncode}\n--- stdout\n'
                    f'{proc.stdout[-6000:]}\n--- stderr\n'
                    f'{proc.stderr[-6000:]}')
    return proc


def train_iterations(log_text):
    """The 'Epoch(train) [e][i/n]' progress entries of an mmengine log."""
    return [(int(e), int(i), int(n)) for e, i, n in re.findall(
        r'Epoch\(train\)\s+\[(\d+)\]\[\s*(\d+)/(\d+)\]', log_text)]


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@pytest.fixture(autouse=True)
def mmpretrain_scope():
    """Every test builds in mmpretrain's scope unless it says otherwise, so
    no test depends on the default scope another test left behind."""
    from mmengine.registry import DefaultScope
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        yield


def pytest_collection_modifyitems(config, items):
    """Runs the heavy tests first, the longest of them (those marked
    ``heavy(minutes=...)``) before the rest. Under `make test` (pytest -n,
    --dist worksteal) the first worker starts the longest test at once
    while the others work through the rest and steal from its queue,
    instead of one worker starting a six-minute test when the others are
    done."""
    def order(item):
        heavy = item.get_closest_marker('heavy')
        if heavy is None:
            return 1, 0
        return 0, -heavy.kwargs.get('minutes', 0)

    items.sort(key=order)
