"""One way for the command lines to say a user's mistake: a tool raises
:class:`UserError` (or lets one of the library's ValueError or
FileNotFoundError through: they name the argument and what is allowed),
and ``run_tool`` (:mod:`.run_tool`) prints it as ``<tool>: error: <what is
wrong>, <what is allowed>`` on one line (:func:`one_line`) with exit code
2, as argparse does for a bad option; ``--debug`` shows the traceback
instead."""

__all__ = ['USER_ERRORS', 'UserError', 'WORKER_TRACEBACK', 'add_debug_arg',
           'one_line']


class UserError(Exception):
    """A mistake in a tool's arguments or inputs, reported as one line."""


# What run_tool reports as a user's mistake: ours, and the library's checks
# of arguments, configs and files (each names what is wrong and allowed).
USER_ERRORS = (UserError, ValueError, FileNotFoundError)


def add_debug_arg(parser):
    """Adds ``--debug`` to ``parser``."""
    parser.add_argument('--debug', action='store_true',
                        help='on an error, show its traceback instead of '
                        'one line')
    return parser


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
