import logging
import os
import os.path as osp
import re
import subprocess
import sys

import mmengine.config.config
import pytest
import torch

import randsac_mm.registration  # noqa: F401  (registers, as configs do)
from randsac_mm.precision import CPU_PRECISION_ENV


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

# The recorded losses are float32's: a CPU with bf16 instructions would
# autocast the configs' precision='auto' runs (randsac_mm.precision), in
# this process and in the tools it launches. The tests of the bf16 path
# lift it (monkeypatch.delenv) and skip where the CPU has no bf16.
os.environ[CPU_PRECISION_ENV] = 'float32'

from .tool_runs import (  # noqa: E402,F401  (tool_command: for the tests)
    REPO_ROOT,
    in_process_possible,
    run_command,
    tool_command,
)

DEMO_CLASSIFIER = osp.join(REPO_ROOT, 'configs', 'demo',
                           'vit-mini-p4_1xb64-10e_digits.py')


def run_tool(args, timeout=600, env=None, own_process=False):
    """Runs ``args`` from the repository root and returns its
    CompletedProcess: a tool under tools/ (``['tools/x.py', ...]``), an
    experiment command (``['-m', 'experiments.x', ...]``) or any command.

    A Python tool runs in this process (``tool_runs.run_command``) unless
    ``own_process``; any other command, and every command on a machine
    with CUDA, in a process of its own (``timeout`` applies there).

    Fails the test, with the tool's output, when it exits non-zero.
    """
    full_env = dict(OMP_NUM_THREADS='1', PYTHONUNBUFFERED='1',
                    PYTHON=sys.executable)
    full_env.update(env or {})
    if not own_process and in_process_possible(args):
        proc = run_command(args, full_env)
    else:
        if args[0].endswith('.py') or args[0] == '-m':
            args = [sys.executable] + list(args)
        proc = subprocess.run(
            [str(a) for a in args], cwd=REPO_ROOT,
            env={k: v for k, v in dict(os.environ, **full_env).items()
                 if v is not None},  # None: unset
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


def save_moved_checkpoint(model, path, meta=None):
    """Saves ``model`` as a checkpoint (``state_dict``, ``meta``) after
    moving every parameter off its initial value (+ N(0, 0.02)), so that a
    test comparing loaded tensors sees every one matter. Returns ``path``
    as a str."""
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.02)
    torch.save({'state_dict': model.state_dict(), 'meta': meta or {}}, path)
    return str(path)


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


class LineHandler(logging.Handler):
    """Keeps what a logger says in ``lines`` (a run's mmengine logger does
    not propagate to the root)."""

    def __init__(self, lines):
        super().__init__()
        self.lines = lines

    def emit(self, record):
        self.lines.append(record.getMessage())


@pytest.fixture(autouse=True)
def signal_handlers():
    """The stop signals' handlers put back after each test: a tool run in
    this process (run_tool) sets its own, and ignores them once it ends."""
    import signal
    names = (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)
    before = {s: signal.getsignal(s) for s in names}
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


@pytest.fixture
def logged():
    """The messages logged through mmengine's current logger during the
    test (what a data set says of the files it leaves out)."""
    import logging

    from mmengine.logging import MMLogger
    messages = []
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())
    logger = MMLogger.get_current_instance()
    logger.addHandler(handler)
    yield messages
    logger.removeHandler(handler)


def pytest_collection_finish(session):
    """Freezes what the collection made (the libraries the tests import,
    the tests themselves) out of Python's garbage collection: mmengine's
    data sets call ``gc.collect()`` at each build, and with it scanning
    every object of a test process it took half a second a build, 40% of
    a one-iteration config test; frozen objects are not scanned
    (``gc.freeze``). They live as long as the process anyway."""
    import gc
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config, items):
    """Runs the heavy tests first, the longest of them (those marked
    ``heavy(minutes=...)``) before the rest. Under `make test` (pytest -n,
    --dist loadfile --no-loadscope-reorder) the files go out in the order
    of their first test as the workers free up: the file with the longest
    test starts at once while the other workers work through the rest,
    instead of one worker starting a six-minute test when the others are
    done."""
    def order(item):
        heavy = item.get_closest_marker('heavy')
        if heavy is None:
            return 1, 0
        return 0, -heavy.kwargs.get('minutes', 0)

    items.sort(key=order)
