"""The tools' one way out: a mistake or Ctrl-C is one line, never a
traceback, unless --debug (``randsac_mm.cli.errors.run_tool``)."""
import pytest

from randsac_mm.cli.errors import INTERRUPTED, UserError, run_tool


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
