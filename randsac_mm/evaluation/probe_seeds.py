"""Readouts repeated over probe seeds: how much a probe's own seed
(initialisation, batch order) moves its accuracy, on features extracted
once."""
import statistics

from .readout_registry import READOUTS

__all__ = ['check_probe_seeds', 'mean_over_probe_seeds']


def check_probe_seeds(probe_seeds, name='probe_seeds'):
    """Raises ValueError, naming the argument ``name``, unless
    ``probe_seeds`` holds at least one seed and no seed twice (a repeated
    seed repeats its result and shrinks the standard deviation)."""
    if not probe_seeds:
        raise ValueError(f'{name}: give at least one seed, or None for one '
                         'probe seeded with seed')
    if len(set(probe_seeds)) != len(probe_seeds):
        raise ValueError(f'{name} must be distinct, got {list(probe_seeds)}')


def mean_over_probe_seeds(results, probe_seeds):
    """One readout result from several probe seeds' (``read_out`` dicts).

    Returns:
        dict: each readout's results averaged over the seeds (its
        ``mean_over_seeds``: per layer for 'layers', with the best layer of
        those means); ``probe_seeds``; ``per_probe_seed``, the results as
        given; ``probe_seed_sd``, the standard deviation over the seeds of
        each accuracy readout read out (0 for one seed).
    """
    mean = dict(results[0])
    spread = {}
    for name, readout in READOUTS.items():
        if not readout.read_in(mean):
            continue
        mean.update(readout().mean_over_seeds(results))
        if readout.accuracy:
            values = [r[name] for r in results]
            spread[name] = statistics.stdev(values) if len(values) > 1 \
                else 0.0
    mean.update(probe_seeds=list(probe_seeds), per_probe_seed=results,
                probe_seed_sd=spread)
    return mean
