"""``tools/train.py`` run by a benchmark as a user runs it, its output
written to a log as it goes: a window that stops the run at its limit
still brings back how far it got (the first real window's compiled run
was stopped, its log lost)."""
import os.path as osp
import subprocess
import sys
import time

from .. import REPO_ROOT

__all__ = ['run_train_tool']


def run_train_tool(arguments, log_path, what):
    """Runs ``tools/train.py`` with ``arguments`` from the repository root,
    its output to ``log_path``.

    Args:
        arguments (list[str]): its arguments (the config first).
        log_path (str): the log file, written as the run goes.
        what (str): how the error names the run.

    Returns:
        float: its wall time in seconds.

    Raises:
        RuntimeError: it exited with an error, naming its last line.
    """
    command = [sys.executable, osp.join(REPO_ROOT, 'tools', 'train.py'),
               *arguments]
    start = time.time()
    with open(log_path, 'w') as f:
        proc = subprocess.run(command, cwd=REPO_ROOT, stdout=f,
                              stderr=subprocess.STDOUT, text=True)
    wall = time.time() - start
    if proc.returncode:
        with open(log_path) as f:
            tail = f.read().strip().splitlines()[-1:]
        raise RuntimeError(f'{what} exited {proc.returncode}: {tail}; see '
                           f'{log_path}')
    return wall
