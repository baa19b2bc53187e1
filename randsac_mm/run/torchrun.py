"""``torchrun`` as ``tools/dist_train.sh`` and ``tools/dist_test.sh`` start
it: the same launcher (``torch.distributed.run``), but a run stopped by a
signal ends in one line and the shell's exit code, not torchrun's
tracebacks.

    python -m randsac_mm.run.torchrun PROG [torchrun arguments]

- Ctrl-C (SIGINT to the launcher and every process): ``PROG: interrupted``
  and exit 130; the processes say nothing (``run_tool``).
- SIGTERM or SIGUSR1 (to the launcher, which passes it on, or to the
  processes): rank 0's ``PreemptionHook`` line, in its console and its
  log, names the checkpoint to resume from; the launcher adds nothing and
  exits 128 + the signal's number (143, 138).
- A process lost (killed, as by the kernel's OOM killer, or failed with
  its own error above): one line naming its rank, the signal or exit code,
  and for tools/train.py the checkpoint ``--resume`` continues from; the
  processes left say nothing of their lost peer (``run_tool``). The exit
  code is the lost process's (128 + the signal's number when killed).
"""
import logging
import os.path as osp
import signal
import sys

from ..cli.run_tool import PEER_LOST
from ..signals import PREEMPTION_SIGNALS, stopped_exit_code

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
        return not ('death signal' in message or 'closing signal' in message
                    or 'failed (exitcode' in message)  # the lost rank's


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
    args = torchrun.parse_args(torchrun_args)
    try:
        torchrun.run(args)
    except SignalException as stop:
        _end(prog, stopped_exit_code(stop.sigval))
    except ChildFailedError as failed:
        codes = {f.exitcode for f in failed.failures.values()}
        if codes <= STOPPED_CODES:
            # The processes were stopped (a signal to them, not to the
            # launcher): the first's code.
            _end(prog, min(codes))
        rank, failure = lost_process(failed.failures)
        code = failure.exitcode
        note = resume_note(args.training_script, args.training_script_args)
        print(f'{prog}: {lost_line(rank, code)}{note}', file=sys.stderr,
              flush=True)
        sys.exit(128 - code if code < 0 else code)


def lost_process(failures):
    """``(rank, failure)`` of the process lost first of its own accord,
    among torchrun's ``{rank: ProcessFailure}``: not one that ended because
    its peer was gone (``PEER_LOST``) or that torchrun stopped after it
    (SIGTERM), unless all did."""
    own = {rank: failure for rank, failure in failures.items()
           if failure.exitcode not in (PEER_LOST, -signal.SIGTERM)}
    return min((own or failures).items(),
               key=lambda item: (item[1].timestamp, item[0]))


def lost_line(rank, code):
    """What happened to rank ``rank``, which ended with exit code ``code``
    (negative: killed by that signal)."""
    if code < 0:
        how = f'was killed by {signal.Signals(-code).name}'
    else:
        how = f'failed with exit code {code} (its output is above)'
    return f'rank {rank} {how}, and the other processes were stopped'


def resume_note(script, script_args):
    """For tools/train.py: the checkpoint ``--resume`` continues from, read
    from the run's work dir; otherwise nothing."""
    if osp.basename(script) != 'train.py' or not script_args:
        return ''
    from ..checkpoint.latest import latest_checkpoint
    from ..cli.config_file import default_work_dir, read_config
    work_dir = None
    for i, arg in enumerate(script_args):
        if arg == '--work-dir' and i + 1 < len(script_args):
            work_dir = script_args[i + 1]
        elif arg.startswith('--work-dir='):
            work_dir = arg.split('=', 1)[1]
    try:
        if work_dir is None:
            work_dir = default_work_dir(
                read_config(script_args[0], 'config'), script_args[0])
        checkpoint = latest_checkpoint(work_dir)
    except Exception as error:  # the line is said, the note short
        return f' (the checkpoint to resume from not found: {error})'
    if checkpoint is None:
        return (f'; {work_dir} holds no checkpoint yet: start again '
                'without --resume')
    return f'; --resume continues from {checkpoint}'


def _end(prog, code):
    if code == INTERRUPTED_CODE:
        print(f'{prog}: interrupted', file=sys.stderr, flush=True)
    sys.exit(code)


if __name__ == '__main__':
    main()
