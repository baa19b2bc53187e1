"""The batch crop boxes are mmpretrain's ``RandomResizedCrop`` boxes: the
same box from the same numbers, and the same distribution from the keyed
numbers."""
import numpy as np
import pytest
from mmpretrain.datasets.transforms import RandomResizedCrop
from scipy.stats import chi2_contingency

from randsac_mm.datasets.batch.crop_params import (
    UNIFORMS_PER_ATTEMPT,
    random_resized_crop_boxes,
)
from randsac_mm.datasets.batch.keyed_random import keyed_uniform, sample_keys

SCALE, RATIO = (0.2, 1.0), (3. / 4., 4. / 3.)  # the paper's CIFAR crop


class _Feed:
    """Stands in for ``np.random`` inside mmpretrain's transform, reading
    one image's numbers [attempts, 4] as mmpretrain draws: each attempt's
    ``uniform`` calls take its area and ratio numbers, the ``randint``
    calls of the box that fits its two offset numbers."""

    def __init__(self, numbers):
        self.attempts = numbers.reshape(-1, UNIFORMS_PER_ATTEMPT)
        self.uniforms = self.randints = 0

    def uniform(self, low, high):
        attempt, which = divmod(self.uniforms, 2)
        self.uniforms += 1
        return low + self.attempts[attempt, which] * (high - low)

    def randint(self, low, high):
        attempt = (self.uniforms - 1) // 2
        self.randints += 1
        u = self.attempts[attempt, 1 + self.randints]
        return low + int(u * (high - low))


def _mmpretrain_box(numbers, height, width, scale, ratio, monkeypatch):
    """mmpretrain's box for one image, its draws taken from ``numbers``."""
    import mmpretrain.datasets.transforms.processing as processing
    transform = RandomResizedCrop(scale=8, crop_ratio_range=scale,
                                  aspect_ratio_range=ratio)
    monkeypatch.setattr(processing.np, 'random', _Feed(numbers))
    return transform.rand_crop_params(np.zeros((height, width, 3)))


@pytest.mark.parametrize('height, width, scale, ratio', [
    (32, 32, SCALE, RATIO), (28, 40, SCALE, RATIO),
    # Boxes that rarely fit: the centred fallback, wide and tall images.
    (30, 12, (0.9, 1.0), (3.0, 4.0)), (12, 30, (0.9, 1.0), (0.25, 0.3))])
def test_the_same_numbers_give_mmpretrains_box(height, width, scale, ratio,
                                               monkeypatch):
    numbers = keyed_uniform(sample_keys(0, 0, np.arange(300)), 1,
                            10 * UNIFORMS_PER_ATTEMPT)
    ours = random_resized_crop_boxes(numbers, height, width, scale, ratio)
    theirs = [_mmpretrain_box(n, height, width, scale, ratio, monkeypatch)
              for n in numbers]
    np.testing.assert_array_equal(ours, np.array(theirs))
    assert (ours[:, 0] + ours[:, 2] <= height).all()
    assert (ours[:, 1] + ours[:, 3] <= width).all()


def test_keyed_boxes_follow_mmpretrains_distribution():
    # mmpretrain's own draws from numpy's generator against ours from the
    # keyed numbers: the two distributions of each box value agree.
    n, side = 20_000, 32
    transform = RandomResizedCrop(scale=side, crop_ratio_range=SCALE,
                                  aspect_ratio_range=RATIO)
    np.random.seed(0)
    theirs = np.array([transform.rand_crop_params(np.zeros((side, side, 3)))
                       for _ in range(n)])
    ours = random_resized_crop_boxes(
        keyed_uniform(sample_keys(0, 0, np.arange(n)), 1,
                      10 * UNIFORMS_PER_ATTEMPT), side, side, SCALE, RATIO)
    for column in range(4):  # top, left, height, width
        values = np.union1d(theirs[:, column], ours[:, column])
        table = np.array([[np.sum(d[:, column] == v) for v in values]
                          for d in (theirs, ours)])
        table = table[:, table.sum(0) >= 10]  # chi-square needs counts
        assert chi2_contingency(table).pvalue > 0.001, column
    # And the test has power: the offsets' range one short is refused.
    shifted = ours.copy()
    shifted[:, 0] = np.minimum(shifted[:, 0], side - shifted[:, 2] - 1)
    shifted[:, 0] = np.maximum(shifted[:, 0], 0)
    values = np.union1d(theirs[:, 0], shifted[:, 0])
    table = np.array([[np.sum(d[:, 0] == v) for v in values]
                      for d in (theirs, shifted)])
    assert chi2_contingency(table[:, table.sum(0) >= 10]).pvalue < 0.001


def test_uniforms_of_another_shape_are_refused():
    with pytest.raises(ValueError, match=r'\[B, attempts \* 4\]'):
        random_resized_crop_boxes(np.zeros((3, 6)), 32, 32)
