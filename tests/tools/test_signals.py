"""tools/dist_train.sh under the signals a user and a cluster send: Ctrl-C
and SIGTERM end it with one line and the shell's exit code (130, 143), for
every rank and for torchrun, and a busy port is one line naming PORT=."""
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from ..conftest import DEMO_CLASSIFIER, REPO_ROOT, free_port

pytestmark = pytest.mark.heavy


def dist_train(work_dir, port):
    """tools/dist_train.sh, 2 CPU processes on the demo classifier, in a
    session of its own (the terminal's process group)."""
    env = dict(os.environ, PYTHON=sys.executable, PORT=str(port),
               OMP_NUM_THREADS='1', PYTHONUNBUFFERED='1')
    return subprocess.Popen(
        ['tools/dist_train.sh', DEMO_CLASSIFIER, '2', '--device', 'cpu',
         '--work-dir', str(work_dir), '--cfg-options',
         'default_hooks.logger.interval=1'],
        cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True)


def until_training(proc):
    """The output up to the first logged iteration (the run is training)."""
    lines = []
    deadline = time.time() + 300
    for line in proc.stdout:
        lines.append(line)
        if 'Epoch(train)' in line or time.time() > deadline:
            break
    assert any('Epoch(train)' in line for line in lines), ''.join(lines)
    return lines


def said(output):
    """What the tools and torchrun say of the stop, among the run's own
    log: their lines, any traceback, the stop's line."""
    return [line for line in output.splitlines()
            if line.startswith(('tools/', 'Traceback')) or
            'stopped by' in line or 'SignalException' in line]


def test_ctrl_c_is_one_line_and_exit_130(tmp_path):
    """Before: 'interrupted' from each rank, then torchrun's SignalException
    traceback, exit 1."""
    proc = dist_train(tmp_path, free_port())
    before = until_training(proc)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    output = ''.join(before) + proc.communicate(timeout=120)[0]
    assert proc.returncode == 130, output[-3000:]
    assert said(output) == ['tools/dist_train.sh: interrupted'], \
        output[-3000:]


def test_sigterm_to_torchrun_is_rank_0s_line_and_exit_143(tmp_path):
    """What Slurm or a user's kill sends to the launcher: it passes it on,
    rank 0 stops after the iteration naming the checkpoint to resume from
    (none yet in the first epoch), nothing else speaks."""
    proc = dist_train(tmp_path, free_port())
    before = until_training(proc)
    os.kill(proc.pid, signal.SIGTERM)  # dist_train.sh execs the launcher
    output = ''.join(before) + proc.communicate(timeout=120)[0]
    assert proc.returncode == 143, output[-3000:]
    [line] = said(output)
    assert ' - mmengine - WARNING - stopped by SIGTERM in iteration ' in line
    assert line.endswith('(epoch 1): no checkpoint written yet: a new run '
                         'starts from the beginning')


def test_a_busy_port_is_one_line_naming_port(tmp_path):
    """Before: torchrun's DistNetworkError traceback (EADDRINUSE)."""
    with socket.socket() as busy:
        busy.bind(('', 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = dist_train(tmp_path, port)
        output = proc.communicate(timeout=120)[0]
    assert proc.returncode == 2
    [line] = output.strip().splitlines()
    assert line.startswith(f'tools/dist_train.sh: error: PORT {port} is in '
                           'use on this node (Address already in use: '
                           "another run's torchrun?); give a free port, "
                           'e.g. PORT=')
    assert not tmp_path.exists() or not os.listdir(tmp_path)
