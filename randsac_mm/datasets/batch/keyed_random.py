"""Random numbers keyed on (run seed, epoch, sample index).

The batch data path draws a whole batch's crops, flips and layouts at once,
yet each sample's draws must depend on its key alone, never on the batch it
lands in, the rank that loads it or what was drawn before: then N processes
draw what one process draws, and a resumed run draws what the uninterrupted
run drew (docs/guarantees.md). A counter-based generator gives that with
array arithmetic: the n-th number of a stream of a sample is a hash of
(sample key, stream, n), with no state carried from one draw to the next.

The hash is splitmix64's output function (Steele, Lea and Flood, "Fast
splittable pseudorandom number generators", OOPSLA 2014): a bijection of
64-bit words whose outputs pass BigCrush for consecutive inputs. numpy's
uint64 arrays wrap around on overflow, as the hash needs.
"""
import zlib

import numpy as np

__all__ = ['keyed_draws', 'keyed_uniform', 'sample_keys']

_GAMMA = np.uint64(0x9E3779B97F4A7C15)  # splitmix64's increment
_MASK63 = 2**63 - 1


def _mix(words):
    """splitmix64's finaliser of a uint64 array (a bijection)."""
    words = words ^ (words >> np.uint64(30))
    words = words * np.uint64(0xBF58476D1CE4E5B9)
    words = words ^ (words >> np.uint64(27))
    words = words * np.uint64(0x94D049BB133111EB)
    return words ^ (words >> np.uint64(31))


def _as_words(values, name):
    values = np.asarray(values)
    if values.dtype.kind not in 'iu' or (values < 0).any():
        raise ValueError(f'{name} must be non-negative integers, got '
                         f'{values.dtype} {values.ravel()[:4]}')
    return values.astype(np.uint64)


def sample_keys(seed, epoch, indices):
    """One 64-bit key per sample of a batch.

    Args:
        seed (int): the run's seed (any integer; taken modulo 2**63, as
            ``PerSampleSeed`` does).
        epoch (int): the epoch, >= 0.
        indices (array-like): int [B], the samples' indices in the data set.

    Returns:
        np.ndarray: uint64 [B].
    """
    indices = _as_words(indices, 'indices')
    head = _mix(_as_words([int(seed) & _MASK63], 'seed') + _GAMMA)
    head = _mix(head ^ _as_words([epoch], 'epoch') * _GAMMA)
    # Chained, not summed: (seed, epoch, index) tuples that sum alike
    # still get unrelated keys.
    return _mix((head ^ indices) + _GAMMA)


def keyed_uniform(keys, stream, count):
    """``count`` uniform numbers in [0, 1) per key, from one stream.

    Args:
        keys (np.ndarray): uint64 [B], from :func:`sample_keys`.
        stream (int): which draws these are (the crop, the flip, the
            layout: each use its own, so that adding draws to one stream
            leaves the others as they were), 0 <= stream < 2**31.
        count (int): numbers per key.

    Returns:
        np.ndarray: float64 [B, count], each with 53 random bits.
    """
    if not 0 <= stream < 2**31:
        raise ValueError(f'stream must be in [0, 2**31), got {stream}')
    counters = (np.uint64(stream) << np.uint64(32)) + np.arange(
        1, count + 1, dtype=np.uint64)
    words = _mix(np.asarray(keys, dtype=np.uint64)[:, None]
                 + counters[None] * _GAMMA)
    return (words >> np.uint64(11)).astype(np.float64) * 2.0**-53


def keyed_draws(keys, stream):
    """The ``draws(name, count)`` of the segments' batch forms
    (:mod:`randsac_mm.segments.draws`) for these samples: each named draw
    is a stream of its own, derived from ``stream`` and the name.

    Args:
        keys (np.ndarray): uint64 [B], from :func:`sample_keys`.
        stream (int): the layouts' stream.

    Returns:
        callable: ``draws(name, count)`` -> float64 [B, count].
    """
    def draws(name, count):
        # crc32 of the name's repr: the same stream in every process (the
        # built-in hash of a string is salted per process).
        named = zlib.crc32(repr((stream, name)).encode()) & (2**31 - 1)
        return keyed_uniform(keys, named, count)
    return draws
