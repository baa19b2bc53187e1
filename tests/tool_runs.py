"""Running a tool or an experiment command as a test does: in this process
by default, as ``python tool.py ARGS`` would run it, or in a process of its
own where the process is what is tested.

A new interpreter costs about 12 s of imports here (torch, mmengine,
mmpretrain, and mmdet, which mmpretrain imports where it is installed),
most of a short tool run; in this process they are paid once per worker.
The run is the tool's own ``__main__`` (``runpy``) with its ``sys.argv``,
from the repository root, with the environment it would get, and torch's
threads as its ``OMP_NUM_THREADS``; its output is captured at the file
descriptors, so what processes it starts itself is captured too, in order.
Everything is restored afterwards.

A process of its own is kept for what only a process shows: shell scripts,
``torchrun``, a signal, the GPUs hidden before torch starts, an installed
wheel, the exit code and stderr of a table's ``as_a_user`` rows. On a
machine with CUDA every run takes its own process: a process that has
looked at its GPUs can no longer hide them (``--device cpu``).
"""
import argparse
import contextlib
import importlib
import importlib.util
import io
import os
import os.path as osp
import runpy
import subprocess
import sys
import tempfile
import traceback

import pytest
import torch

__all__ = ['REPO_ROOT', 'as_a_user', 'in_process', 'parser_of',
           'run_command', 'run_in_process', 'run_process', 'tool_command',
           'tool_globals']

REPO_ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))


def tool_command(tool):
    """What follows ``python`` to run ``tool``: a script's path (a tool
    under tools/), or ``-m`` and a module (an experiment command,
    ``experiments.<name>``, which runs from the repository root)."""
    return [tool] if tool.endswith('.py') else ['-m', tool]


def python_tool(args):
    """(kind, target, arguments) of a Python tool's command line
    (``['tools/x.py', ...]`` or ``['-m', 'experiments.x', ...]``), else
    None."""
    args = [str(a) for a in args]
    if args and args[0].endswith('.py'):
        return 'path', args[0], args[1:]
    if len(args) > 1 and args[0] == '-m' and args[1].startswith(
            'experiments.'):
        return 'module', args[1], args[2:]
    return None


@contextlib.contextmanager
def _captured_descriptors():
    """stdout and stderr, Python's and the file descriptors', into two
    temporary files; yields a function that returns their text."""
    files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
    saved = []
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    for fd, file in zip((1, 2), files):
        saved.append(os.dup(fd))
        os.dup2(file.fileno(), fd)
    streams = [io.TextIOWrapper(open(fd, 'wb', closefd=False),
                                line_buffering=True) for fd in (1, 2)]
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = streams

    def text():
        for stream in streams:
            stream.flush()
        out = []
        for file in files:
            file.seek(0)
            out.append(file.read().decode(errors='replace'))
        return out
    try:
        yield text
    finally:
        for stream in streams:
            stream.flush()
        sys.stdout, sys.stderr = old
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)


def run_command(args, env=None):
    """``args`` (a Python tool's command line, see :func:`python_tool`) in
    this process, as its ``__main__``.

    Returns:
        subprocess.CompletedProcess: its exit code, stdout and stderr.
    """
    kind, target, arguments = python_tool(args)
    environ, cwd, argv = dict(os.environ), os.getcwd(), sys.argv
    path = list(sys.path)
    # What PYTHONPATH would put first on a new interpreter's path.
    sys.path[:0] = [p for p in (env or {}).get('PYTHONPATH', '').split(
        os.pathsep) if p]
    threads = torch.get_num_threads()
    os.environ.update({k: str(v) for k, v in (env or {}).items()
                       if v is not None})
    for key in [k for k, v in (env or {}).items() if v is None]:
        os.environ.pop(key, None)
    torch.set_num_threads(int(os.environ.get('OMP_NUM_THREADS', threads)))
    os.chdir(REPO_ROOT)
    code = 0
    try:
        with _captured_descriptors() as text:
            sys.argv = [target] + arguments
            try:
                if kind == 'path':  # sys.argv[0]: the path as given
                    runpy.run_path(target, run_name='__main__')
                else:
                    runpy.run_module(target, run_name='__main__',
                                     alter_sys=True)
            except SystemExit as e:
                if isinstance(e.code, str):
                    print(e.code, file=sys.stderr)
                code = e.code if isinstance(e.code, int) else \
                    (0 if e.code is None else 1)
            except Exception:  # as the interpreter reports it
                traceback.print_exc()
                code = 1
            out, err = text()
    finally:
        sys.argv = argv
        sys.path[:] = path
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)
        torch.set_num_threads(threads)
    return subprocess.CompletedProcess([target, *arguments], code, out, err)


def in_process_possible(args):
    """Whether ``args`` can run in this process: a Python tool, and no CUDA
    to hide (see the module's docstring)."""
    return python_tool(args) is not None and not torch.cuda.is_available()


def run_process(argv, env=None):
    """``argv`` (a tool, an experiment module or a script) in a process of
    its own, from the repository root: returns (exit code, stdout,
    stderr)."""
    full_env = dict(os.environ, PYTHONUNBUFFERED='1', OMP_NUM_THREADS='1',
                    **(env or {}))
    command = [sys.executable, *tool_command(argv[0]), *argv[1:]] \
        if not argv[0].endswith('.sh') else argv
    proc = subprocess.run(command, cwd=REPO_ROOT, env=full_env,
                          capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


def tool_globals(tool, run_name):
    """The globals of ``tool`` run as ``run_name`` (so its ``__main__``
    block does not run): a script by its path, an experiment as the module
    it is (its relative imports need its package)."""
    if tool.endswith('.py'):
        return runpy.run_path(osp.join(REPO_ROOT, tool), run_name=run_name)
    return runpy.run_module(tool, run_name=run_name)


def run_in_process(argv, monkeypatch, capsys):
    """A mistake table's row in this process: returns (exit code, stdout,
    stderr); its device check is the suite's no-op."""
    tool = argv[0]
    if tool.endswith('.py'):
        command = argv
    else:
        command = ['-m', *argv]
    import randsac_mm.cli.device as device
    monkeypatch.setattr(device, 'use_device_or_exit', lambda *a, **k: None)
    monkeypatch.setattr(device, 'use_device', lambda *a, **k: None)
    proc = run_command(command, env=dict(OMP_NUM_THREADS='1'))
    return proc.returncode, proc.stdout, proc.stderr


def in_process(*row):
    """A table row ``(id, *values)`` run in this process."""
    return pytest.param(*row[1:], False, id=row[0])


def as_a_user(*row):
    """A table row ``(id, *values)`` run in a process of its own."""
    return pytest.param(*row[1:], True, id=row[0],
                        marks=pytest.mark.heavy)


def script_module(path):
    """The module of a script (``tools/...py``, relative to the repository
    root), loaded from its file: tools/ is no package."""
    spec = importlib.util.spec_from_file_location(
        '_tool_' + osp.basename(path)[:-3], osp.join(REPO_ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parser_of(tool, monkeypatch):
    """The module of ``tool`` (a script's path, or an experiment module)
    and the ArgumentParser its ``main`` builds, caught when it parses
    (nothing runs)."""
    module = script_module(tool) if tool.endswith('.py') else \
        importlib.import_module(tool)
    caught = []

    class Caught(Exception):
        pass

    def parse_args(self, args=None, namespace=None):
        caught.append(self)
        raise Caught

    with monkeypatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, 'parse_args', parse_args)
        with pytest.raises(Caught):
            module.main([])
    return module, caught[0]
