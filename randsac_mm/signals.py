"""The signals that stop a run, and the exit code each gives: one list for
the tools (``randsac_mm.cli.run_tool.run_tool``) and the training loop
(``randsac_mm.engine.hooks.PreemptionHook``). Standard library only."""
import signal

__all__ = ['PREEMPTION_SIGNALS', 'stopped_exit_code']

# SIGTERM: what Slurm sends at a job's end or preemption, torchrun to its
# workers, `kill` by default; SIGUSR1: what `sbatch --signal=USR1@90`
# sends ahead of the time limit, for a job to save and requeue itself.
PREEMPTION_SIGNALS = (signal.SIGTERM, signal.SIGUSR1)


def stopped_exit_code(signum):
    """A process ended by signal ``signum``: 128 + its number, as a shell
    reports it (130 for SIGINT, 143 for SIGTERM, 138 for SIGUSR1)."""
    return 128 + int(signum)
