"""The tools' one way out: a mistake or Ctrl-C is one line, never a
traceback, unless --debug (``randsac_mm.cli.run_tool.run_tool``)."""
import pytest

from randsac_mm.cli.errors import UserError
from randsac_mm.cli.run_tool import INTERRUPTED, run_tool


def raising(error):
    def main(argv):
        raise error
    return main


@pytest.mark.parametrize('error, code, line', [
    (UserError('--x: bad\nreally'), 2, 'tool: error: --x: bad really'),
    (FileNotFoundError('config: no such file'), 2,
     'tool: error: config: no such file'),
    (KeyboardInterrupt(), INTERRUPTED, 'tool: interrupted'),
])
def test_one_line_and_an_exit_code(error, code, line, capsys):
    with pytest.raises(SystemExit) as stop:
        run_tool(raising(error), argv=[], prog='tool')
    assert stop.value.code == code
    captured = capsys.readouterr()
    assert captured.err == line + '\n' and captured.out == ''


@pytest.mark.parametrize('error', [UserError('x'), KeyboardInterrupt()])
def test_debug_lets_it_through(error):
    with pytest.raises(type(error)):
        run_tool(raising(error), argv=['--debug'], prog='tool')


def test_other_errors_are_not_a_users_mistake():
    with pytest.raises(RuntimeError):
        run_tool(raising(RuntimeError('a bug')), argv=[], prog='tool')


def test_a_data_loader_workers_error_is_its_own_last_line():
    from randsac_mm.cli.errors import one_line
    error = ValueError(
        'Caught ValueError in DataLoader worker process 0.\n'
        'Original Traceback (most recent call last):\n'
        '  File "worker.py", line 1, in _worker_loop\n'
        '    data = fetcher.fetch(index)\n'
        'ValueError: data/a.jpg could not be decoded\n')
    assert one_line(error) == 'data/a.jpg could not be decoded'


def test_ctrl_c_before_run_tool_is_one_line_after_interrupt_quietly():
    """A command calls interrupt_quietly before its seconds of imports:
    Ctrl-C there is one line and exit 130, as in run_tool."""
    import subprocess
    import sys
    code = ('from randsac_mm.cli.run_tool import interrupt_quietly\n'
            "interrupt_quietly('python -m experiments.x')\n"
            'import os, signal, time\n'
            'os.kill(os.getpid(), signal.SIGINT)\n'
            'time.sleep(30)\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 130
    assert out.stderr == 'python -m experiments.x: interrupted\n'


@pytest.mark.parametrize('command', [
    'experiments/small_scale/__main__.py',
    'experiments/paper_scale/__main__.py',
    'experiments/transfer_small/__main__.py', 'experiments/digit_scenes.py',
    'experiments/demo.py', 'experiments/transfer_small/curve.py'])
def test_each_experiment_command_interrupts_quietly_before_its_imports(
        command):
    import ast
    import os.path as osp

    from ..conftest import REPO_ROOT
    tree = ast.parse(open(osp.join(REPO_ROOT, command)).read())
    body = [n for n in tree.body if not (
        isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    calls = [i for i, n in enumerate(body)
             if 'interrupt_quietly(' in ast.unparse(n)
             and not isinstance(n, ast.ImportFrom)]
    imports = [i for i, n in enumerate(body)
               if isinstance(n, (ast.Import, ast.ImportFrom))
               and 'interrupt_quietly' not in ast.unparse(n)]
    assert calls and calls[0] < min(imports), command


def signalling(signum):
    """A main that receives ``signum``, as a process does from a cluster
    or ``kill``."""
    def main(argv):
        import os
        import time
        os.kill(os.getpid(), signum)
        time.sleep(5)
        pytest.fail('the signal did not stop the tool')
    return main


@pytest.mark.parametrize('name, code', [('SIGTERM', 143), ('SIGUSR1', 138)])
def test_a_stop_signal_is_one_line_and_the_shells_exit_code(
        name, code, capsys, monkeypatch):
    """What Slurm and torchrun send, outside a training loop (inside it,
    PreemptionHook speaks): before, SIGTERM ended the tool in silence."""
    import signal
    monkeypatch.delenv('RANK', raising=False)
    with pytest.raises(SystemExit) as stop:
        run_tool(signalling(getattr(signal, name)), argv=[], prog='tool')
    assert stop.value.code == code
    assert capsys.readouterr().err == f'tool: stopped by {name}\n'


def test_under_torchrun_only_rank_0_speaks_and_the_launcher_interrupts(
        capsys, monkeypatch):
    """Each process of tools/dist_train.sh gets Ctrl-C: the launcher says
    'interrupted' once (randsac_mm.run.torchrun); of a stop signal, rank 0
    speaks."""
    import signal
    monkeypatch.setenv('TORCHELASTIC_RUN_ID', 'run')
    for rank, said in (('0', 'tool: stopped by SIGTERM\n'), ('1', '')):
        monkeypatch.setenv('RANK', rank)
        with pytest.raises(SystemExit) as stop:
            run_tool(signalling(signal.SIGTERM), argv=[], prog='tool')
        assert stop.value.code == 143 and capsys.readouterr().err == said
        with pytest.raises(SystemExit) as stop:
            run_tool(raising(KeyboardInterrupt()), argv=[], prog='tool')
        assert stop.value.code == 130 and capsys.readouterr().err == ''
