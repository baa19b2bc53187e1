"""tools/dist_train.sh under the signals a user and a cluster send: Ctrl-C
and SIGTERM end it with one line and the shell's exit code (130, 143), for
every rank and for torchrun, a lost rank is one line naming it, and a busy
port is one line naming PORT=."""
import os
import re
import signal
import socket
import subprocess
import sys

import pytest

from ..conftest import (
    DEMO_CLASSIFIER,
    REPO_ROOT,
    free_port,
    train_iterations,
)

pytestmark = pytest.mark.heavy


def dist_train(work_dir, port):
    """tools/dist_train.sh, 2 CPU processes on the demo classifier (256
    images: 2 iterations an epoch, a checkpoint after each), in a session
    of its own (the terminal's process group)."""
    env = dict(os.environ, PYTHON=sys.executable, PORT=str(port),
               OMP_NUM_THREADS='1', PYTHONUNBUFFERED='1')
    return subprocess.Popen(
        ['tools/dist_train.sh', DEMO_CLASSIFIER, '2', '--device', 'cpu',
         '--work-dir', str(work_dir), '--cfg-options',
         'default_hooks.logger.interval=1', 'train_cfg.max_epochs=4',
         'train_dataloader.dataset.indices=256', 'train_cfg.val_interval=100',
         'default_hooks.checkpoint.interval=1'],
        cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True)


def until(proc, text, times=1):
    """The output up to the line where ``text`` has been seen ``times``
    times. Counted, not one per line: processes sharing the pipe can put
    two writes on one line."""
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if ''.join(lines).count(text) >= times:
            return lines
    pytest.fail(f'the run ended before {text!r}: ' + ''.join(lines)[-3000:])


def said(output):
    """What the tools and torchrun say of the stop, among the run's own
    log: their lines, any traceback, the stop's line."""
    return [line for line in output.splitlines()
            if line.startswith(('tools/', 'Traceback')) or
            'stopped by' in line or 'SignalException' in line]


def test_sigterm_to_torchrun_is_rank_0s_line_and_exit_143(tmp_path):
    """What Slurm or a user's kill sends to the launcher: it passes it on,
    rank 0 stops after the iteration naming the checkpoint to resume from,
    nothing else speaks. (Before: torchrun's SignalException traceback.)
    The run is the two-process run of the demo classifier, distributed."""
    proc = dist_train(tmp_path, free_port())
    before = until(proc, 'Saving checkpoint at 1 epochs')
    os.kill(proc.pid, signal.SIGTERM)  # dist_train.sh execs the launcher
    output = ''.join(before) + proc.communicate(timeout=120)[0]
    assert proc.returncode == 143, output[-3000:]
    assert 'Distributed training: True' in output
    assert train_iterations(output)[0] == (1, 1, 2)  # 256 images, 2 ranks
    [line] = said(output)
    assert re.search(r' - mmengine - WARNING - stopped by SIGTERM (after '
                     r'epoch 1|in iteration 3 \(epoch 2\)): --resume '
                     r'restarts epoch 2 from epoch_1\.pth$', line), line
    assert (tmp_path / 'epoch_1.pth').is_file()


def rank_pid(launcher, rank):
    """The pid of torchrun's process of local rank ``rank``."""
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/stat') as f:
                parent = int(f.read().rsplit(')', 1)[1].split()[1])
            with open(f'/proc/{pid}/environ', 'rb') as f:
                environ = f.read().split(b'\0')
        except OSError:  # gone, or not ours
            continue
        if parent == launcher and f'LOCAL_RANK={rank}'.encode() in environ:
            return int(pid)
    pytest.fail(f'no process of local rank {rank} under {launcher}')


def test_a_lost_rank_is_one_line_naming_it_and_the_checkpoint(tmp_path):
    """A process killed (as the OOM killer does): the launcher names it,
    its signal and the checkpoint --resume continues from; rank 0, whose
    collective fails for the lost peer, says nothing. (Before: rank 0's
    gloo traceback and torchrun's ChildFailedError report.)"""
    proc = dist_train(tmp_path, free_port())
    before = until(proc, 'Saving checkpoint at 1 epochs')
    os.kill(rank_pid(proc.pid, 1), signal.SIGKILL)
    output = ''.join(before) + proc.communicate(timeout=120)[0]
    assert proc.returncode == 128 + signal.SIGKILL, output[-3000:]
    assert said(output) == [
        'tools/dist_train.sh: rank 1 was killed by SIGKILL, and the other '
        f'processes were stopped; --resume continues from {tmp_path}/'
        'epoch_1.pth'], output[-3000:]
    assert 'ChildFailedError' not in output


def test_the_lost_process_is_the_first_that_failed_of_its_own_accord():
    from types import SimpleNamespace as Failure

    from randsac_mm.cli.run_tool import PEER_LOST
    from randsac_mm.run.torchrun import lost_line, lost_process
    # Seen at once: rank 0 for its lost peer, rank 1 killed, rank 2
    # stopped by torchrun after.
    failures = {0: Failure(exitcode=PEER_LOST, timestamp=5),
                1: Failure(exitcode=-signal.SIGKILL, timestamp=5),
                2: Failure(exitcode=-signal.SIGTERM, timestamp=5)}
    assert lost_process(failures)[0] == 1
    failures[3] = Failure(exitcode=1, timestamp=4)  # its own error, earlier
    assert lost_process(failures)[0] == 3
    assert lost_line(3, 1) == ('rank 3 failed with exit code 1 (its output '
                               'is above), and the other processes were '
                               'stopped')
    # Only peers lost (the cause not seen): the first of them.
    assert lost_process({4: Failure(exitcode=PEER_LOST, timestamp=2),
                         2: Failure(exitcode=PEER_LOST, timestamp=2)})[0] == 2


# A process of the launcher: silent until it is stopped, as tools/train.py.
RANK = """
import sys, time
from randsac_mm.cli.run_tool import run_tool
def main(argv):
    print('ready', flush=True)
    time.sleep(120)
run_tool(main, prog='tools/train.py')
"""


def test_ctrl_c_is_one_line_and_exit_130(tmp_path):
    """Ctrl-C reaches the launcher and every process (the terminal's
    process group). Before: 'interrupted' from each rank, then torchrun's
    SignalException traceback, exit 1. Two processes of a stand-in for
    tools/train.py (its run_tool), through dist_train.sh's launcher."""
    (tmp_path / 'rank.py').write_text(RANK)
    proc = subprocess.Popen(
        [sys.executable, '-m', 'randsac_mm.run.torchrun',
         'tools/dist_train.sh', '--nproc_per_node=2',
         f'--master_port={free_port()}', str(tmp_path / 'rank.py')],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True,
        env=dict(os.environ, PYTHONUNBUFFERED='1',
                 PYTHONPATH=REPO_ROOT))
    # print() writes 'ready' and its newline apart: the two ranks' words
    # can share a line ('readyready'), so they are counted.
    before = until(proc, 'ready', times=2)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    output = ''.join(before) + proc.communicate(timeout=60)[0]
    assert proc.returncode == 130, output
    assert said(output) == ['tools/dist_train.sh: interrupted'], output


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
