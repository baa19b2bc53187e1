"""``torchrun`` as ``tools/dist_train.sh`` and ``tools/dist_test.sh`` start
it: the same launcher (``torch.distributed.run``), but a run stopped by a
signal ends in one line and the shell's exit code, not torchrun's
tracebacks.

    python -m randsac_mm.cli.run.torchrun PROG [torchrun arguments]

- Ctrl-C (SIGINT to the launcher and every process): ``PROG: interrupted``
  and exit 130; the processes say nothing (``run_tool``).
- SIGTERM or SIGUSR1 (to the launcher, which passes it on, or to the
  processes): rank 0's ``PreemptionHook`` line, in its console and its
  log, names the checkpoint to resume from; the launcher adds nothing and
  exits 128 + the signal's number (143, 138).
- A process that fails otherwise: torchrun's own report, as before.
"""
import logging
import signal
import sys

from ...signals import PREEMPTION_SIGNALS, stopped_exit_code

__all__ = ['main']

INTERRUPTED_CODE = stopped_exit_code(signal.SIGINT)
# What the processes exit with when a signal stopped them (run_tool,
# PreemptionHook).
STOPPED_CODES = {INTERRUPTED_CODE,
                 *(stopped_exit_code(s) for s in PREEMPTION_SIGNALS)}


class _ShutdownNotes(logging.Filter):
    """Drops the agent's warnings that it passes a signal on ("Received 2
    death signal, shutting down workers", "Sending process N closing
    signal SIGINT"): what the one line says already."""

    def filter(self, record):
        message = record.getMessage()
        return not ('death signal' in message or 'closing signal' in message)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    prog, torchrun_args = argv[0], argv[1:]
    from torch.distributed import run as torchrun
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import (
        ChildFailedError,
    )
    for name in ('torch.distributed.elastic.agent.server.api',
                 'torch.distributed.elastic.multiprocessing.api'):
        logging.getLogger(name).addFilter(_ShutdownNotes())
    try:
        torchrun.run(torchrun.parse_args(torchrun_args))
    except SignalException as stop:
        _end(prog, stopped_exit_code(stop.sigval))
    except ChildFailedError as failed:
        codes = {f.exitcode for f in failed.failures.values()}
        if not codes <= STOPPED_CODES:
            raise
        # The processes were stopped (a signal to them, not to the
        # launcher): the first's code.
        _end(prog, min(codes))


def _end(prog, code):
    if code == INTERRUPTED_CODE:
        print(f'{prog}: interrupted', file=sys.stderr, flush=True)
    sys.exit(code)


if __name__ == '__main__':
    main()
