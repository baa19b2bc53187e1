"""How a tool's ``main`` runs (:func:`run_tool`): a user's mistake is one
line and exit code 2 (:mod:`.errors`), and a stop is one line too: Ctrl-C,
also during a command's first imports (:func:`interrupt_quietly`), and
SIGTERM and SIGUSR1 (``randsac_mm.signals``; in training,
``PreemptionHook`` says how to resume instead).

Under ``torchrun`` (``tools/dist_train.sh``) the launcher
(``randsac_mm.run.torchrun``) says "interrupted" once for all processes,
and of a stop only rank 0 speaks; a process whose peer is gone says
nothing and exits ``PEER_LOST`` (the launcher names the rank that was
lost).
"""
import errno
import os
import re
import signal
import sys

from ..signals import PREEMPTION_SIGNALS, stopped_exit_code
from .errors import USER_ERRORS, one_line

__all__ = ['INTERRUPTED', 'LOST_PEER_ERRORS', 'PEER_LOST', 'Stopped',
           'interrupt_quietly', 'launched_rank', 'run_tool']


class Stopped(BaseException):
    """A signal of ``PREEMPTION_SIGNALS`` stopped the tool (outside a
    training loop, whose ``PreemptionHook`` stops it itself)."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _stop(signum, frame):
    raise Stopped(signum)


# The exit code of a tool stopped with Ctrl-C (128 + SIGINT, as a shell
# reports it).
INTERRUPTED = stopped_exit_code(signal.SIGINT)
# What a collective raises in a process whose peer is gone (gloo: the TCP
# pair closed; NCCL: the communicator aborted) ...
LOST_PEER_ERRORS = re.compile(r'Connection closed by peer|Connection reset '
                              r'by peer|NCCL communicator was aborted')
# ... and the exit code such a process ends with, saying nothing: the
# launcher (randsac_mm.run.torchrun) names the rank that was lost.
PEER_LOST = 3


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
    for signum in PREEMPTION_SIGNALS:
        signal.signal(signum, _stop)
    try:
        return main(argv)
    except USER_ERRORS as error:
        if '--debug' in args:
            raise
        print(f'{name}: error: {one_line(error)}', file=sys.stderr)
        sys.exit(2)
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EDQUOT) or \
                '--debug' in args:
            raise
        # A full disk: what was being written, and what is kept.
        print(f'{name}: error: {one_line(error)}', file=sys.stderr)
        sys.exit(1)
    except RuntimeError as error:
        if '--debug' in args or 'TORCHELASTIC_RUN_ID' not in os.environ or \
                not LOST_PEER_ERRORS.search(str(error)):
            raise
        _ignore_signals()  # torchrun stops the others next
        sys.exit(PEER_LOST)
    except KeyboardInterrupt:  # Ctrl-C: the user's choice, not a crash
        _ignore_signals()  # torchrun sends its workers one more
        if '--debug' in args:
            raise
        if 'TORCHELASTIC_RUN_ID' not in os.environ:  # (else the launcher's)
            print(f'{name}: interrupted', file=sys.stderr)
        sys.exit(INTERRUPTED)
    except Stopped as stop:
        _ignore_signals()
        if '--debug' in args:
            raise
        if launched_rank() == 0:
            print(f'{name}: stopped by {stop}', file=sys.stderr)
        sys.exit(stopped_exit_code(stop.signum))


def _ignore_signals():
    """Further stop signals ignored while a tool ends (a second Ctrl-C, or
    torchrun's own signal to its workers, would raise inside the first's
    handling)."""
    for signum in (signal.SIGINT, *PREEMPTION_SIGNALS):
        signal.signal(signum, signal.SIG_IGN)


def launched_rank():
    """This process's rank as its launcher set it (torchrun's ``RANK``,
    Slurm's ``SLURM_PROCID``; 0 for a process alone), known before any
    process group starts."""
    return int(os.environ.get('RANK', os.environ.get('SLURM_PROCID', 0)))
