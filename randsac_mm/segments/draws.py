"""Where the batch forms of schemes and orders get their random numbers.

A batch form draws through ``draws(name, count)``: float64 [B, count] in
[0, 1), where row b depends only on sample b's key and on ``name``, which
names the draw (``'shuffle'``, ``('blob', 3)``, ...). A draw named the same
gives the same numbers whatever was drawn before it and whichever samples
share the batch, so a sample's layout depends on its key alone. (The data
path keys samples on run seed, epoch and index:
``randsac_mm.datasets.batch.keyed_random.keyed_draws``.) Numbers of two
names are unrelated; a batch form names each draw it makes once.
"""
import numpy as np

__all__ = ['sample_generators']


def sample_generators(draws, name):
    """One ``np.random.Generator`` per sample, seeded from its draws named
    ``name``: how a scheme or an order without array code draws one sample
    at a time, keyed like the rest."""
    seeds = (draws(name, 2) * 2.0**53).astype(np.uint64)
    return [np.random.default_rng([int(a), int(b)]) for a, b in seeds]
