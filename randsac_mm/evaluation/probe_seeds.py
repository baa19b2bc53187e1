"""Readouts repeated over probe seeds: how much a probe's own seed
(initialisation, batch order) moves its accuracy, on features extracted
once."""
import statistics

from .readouts import ACCURACY_READOUTS, best_layer

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
        dict: each accuracy averaged over the seeds (``layer_linear`` per
        layer, ``best_layer`` of those means); ``probe_seeds``;
        ``per_probe_seed``, the results as given; ``probe_seed_sd``, the
        standard deviation over the seeds of each of the
        ``ACCURACY_READOUTS`` read out (0 for one seed).
    """
    mean = dict(results[0])
    spread = {}
    for key in ACCURACY_READOUTS:
        if key in mean:
            values = [r[key] for r in results]
            mean[key] = statistics.mean(values)
            spread[key] = statistics.stdev(values) if len(values) > 1 \
                else 0.0
    if 'layer_linear' in mean:
        mean['layer_linear'] = [statistics.mean(layer) for layer in zip(
            *(r['layer_linear'] for r in results))]
        mean['best_layer'] = best_layer(mean['layer_linear'])
    mean.update(probe_seeds=list(probe_seeds), per_probe_seed=results,
                probe_seed_sd=spread)
    return mean
