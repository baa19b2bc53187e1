"""One way for the command lines to report a user's mistake.

A tool raises :class:`UserError` (or lets one of the library's ValueError
or FileNotFoundError through: they name the argument and what is allowed)
and runs its ``main`` with :func:`run_tool`, which prints
``<tool>: error: <what is wrong>, <what is allowed>`` on one line and exits
with 2, as argparse does for a bad option; Ctrl-C ends it with one line
too, also during a command's first imports (:func:`interrupt_quietly`).
``--debug`` shows the traceback instead.
"""
import signal
import sys

__all__ = ['INTERRUPTED', 'USER_ERRORS', 'UserError', 'WORKER_TRACEBACK',
           'add_debug_arg', 'interrupt_quietly', 'one_line', 'run_tool']


class UserError(Exception):
    """A mistake in a tool's arguments or inputs, reported as one line."""


# The exit code of a tool stopped with Ctrl-C (128 + SIGINT, as a shell
# reports it).
INTERRUPTED = 130
# What run_tool reports as a user's mistake: ours, and the library's checks
# of arguments, configs and files (each names what is wrong and allowed).
USER_ERRORS = (UserError, ValueError, FileNotFoundError)


def add_debug_arg(parser):
    """Adds ``--debug`` to ``parser``."""
    parser.add_argument('--debug', action='store_true',
                        help='on an error, show its traceback instead of '
                        'one line')
    return parser


def interrupt_quietly(prog):
    """Until :func:`run_tool` starts, Ctrl-C ends the process with
    ``<prog>: interrupted`` and ``INTERRUPTED``, not with a traceback from
    inside an import: a command calls it first, before its imports of
    torch and OpenMMLab (seconds), and only when run as a command."""
    def interrupted(signum, frame):
        print(f'{prog}: interrupted', file=sys.stderr)
        sys.exit(INTERRUPTED)
    signal.signal(signal.SIGINT, interrupted)


def run_tool(main, argv=None, prog=None):
    """Runs ``main(argv)``; a user error becomes one line on stderr and exit
    code 2, Ctrl-C one line and ``INTERRUPTED`` (the traceback with
    ``--debug``).

    Args:
        main (Callable[[list[str] | None], object]): the tool's main.
        argv (list[str] | None): default ``sys.argv[1:]``.
        prog (str | None): the tool's name in the message (default: the
            script's path as run).
    """
    args = sys.argv[1:] if argv is None else list(argv)
    name = prog or sys.argv[0]
    # Ctrl-C raises KeyboardInterrupt again (after interrupt_quietly).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return main(argv)
    except USER_ERRORS as error:
        if '--debug' in args:
            raise
        print(f'{name}: error: {one_line(error)}', file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:  # Ctrl-C: the user's choice, not a crash
        if '--debug' in args:
            raise
        print(f'{name}: interrupted', file=sys.stderr)
        sys.exit(INTERRUPTED)


# torch re-raises a data loader worker's error in the main process with
# the worker's whole traceback in its message, after this line; the
# traceback's last line is the error.
WORKER_TRACEBACK = 'Original Traceback (most recent call last):'


def one_line(error):
    """An exception's message on one line (its lines joined with ' '),
    without the quotes KeyError puts around it; its type's name when it
    has none. A data loader worker's error is its own message, without the
    worker's traceback."""
    lines = [line.strip() for line in str(error).splitlines()
             if line.strip()]
    if WORKER_TRACEBACK in lines:
        kind = type(error)
        last = lines[-1]
        for own in (f'{kind.__module__}.{kind.__qualname__}: ',
                    f'{kind.__name__}: '):
            last = last[len(own):] if last.startswith(own) else last
        lines = [last]
    message = ' '.join(lines)
    if len(message) > 1 and message[0] == message[-1] and message[0] in \
            '"\'':
        message = message[1:-1]
    return message or type(error).__name__
