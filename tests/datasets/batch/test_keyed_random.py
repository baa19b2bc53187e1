"""Random numbers keyed on (seed, epoch, sample index): a sample draws the
same numbers in any batch, and different samples, epochs, seeds and
streams draw unrelated ones."""
import numpy as np
import pytest

from randsac_mm.datasets.batch.keyed_random import keyed_uniform, sample_keys


def test_a_sample_draws_the_same_in_any_batch_and_order():
    whole = keyed_uniform(sample_keys(7, 3, np.arange(64)), 1, 5)
    shuffled = np.random.default_rng(0).permutation(64)
    part = keyed_uniform(sample_keys(7, 3, shuffled[:10]), 1, 5)
    np.testing.assert_array_equal(part, whole[shuffled[:10]])
    # A longer stream starts with the shorter one's numbers.
    np.testing.assert_array_equal(
        keyed_uniform(sample_keys(7, 3, [5]), 1, 9)[:, :5], whole[[5]])


@pytest.mark.parametrize('other', [
    dict(seed=8), dict(epoch=4), dict(indices=np.arange(1, 65)),
    dict(stream=2)])
def test_another_seed_epoch_index_or_stream_draws_other_numbers(other):
    args = dict(seed=7, epoch=3, indices=np.arange(64), stream=1)
    first = keyed_uniform(sample_keys(args['seed'], args['epoch'],
                                      args['indices']), args['stream'], 4)
    args.update(other)
    second = keyed_uniform(sample_keys(args['seed'], args['epoch'],
                                       args['indices']), args['stream'], 4)
    assert not np.isclose(first, second).any()


def test_numbers_are_uniform_and_uncorrelated():
    u = keyed_uniform(sample_keys(0, 0, np.arange(200_000)), 3, 4)
    assert u.min() >= 0 and u.max() < 1
    # Mean and variance of U(0, 1) within 5 standard errors.
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / u.size)
    assert abs(u.var() - 1 / 12) < 5 * np.sqrt(1 / 180 / u.size)
    counts = np.histogram(u[:, 0], bins=20, range=(0, 1))[0]
    expected = len(u) / 20
    chi2 = ((counts - expected)**2 / expected).sum()
    assert chi2 < 43.8  # 19 degrees of freedom, p = 0.001
    # Neighbouring numbers of a sample, and neighbouring samples.
    for a, b in ((u[:, 0], u[:, 1]), (u[:-1, 0], u[1:, 0])):
        assert abs(np.corrcoef(a, b)[0, 1]) < 5 / np.sqrt(len(a))


def test_bad_keys_are_refused_naming_them():
    with pytest.raises(ValueError, match='indices must be non-negative'):
        sample_keys(0, 0, [3, -1])
    with pytest.raises(ValueError, match='epoch must be non-negative'):
        sample_keys(0, -1, [3])
    with pytest.raises(ValueError, match='indices must be non-negative '
                       'integers, got float64'):
        sample_keys(0, 0, [1.5])
    with pytest.raises(ValueError, match='stream must be in'):
        keyed_uniform(sample_keys(0, 0, [1]), -1, 2)
