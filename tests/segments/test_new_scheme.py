"""A new segment scheme from this file alone: horizontal stripes.

``Stripes`` is what a user writes to add a scheme (docs/architecture.md,
"Adding a segment scheme"). The fixture applies the public decorator,
``register_scheme('stripes')``, for this module's tests only and removes
the name afterwards: the registry is global, and other tests expect the
built-in schemes alone.
"""
from dataclasses import dataclass

import numpy as np
import pytest
import torch
from mmcv.transforms import Compose
from mmengine.dataset import default_collate
from mmengine.optim import OptimWrapper
from mmpretrain.registry import MODELS

from randsac_mm.segments import (
    SEGMENT_SCHEMES,
    SegmentScheme,
    SegmentSpec,
    make_layout,
    register_scheme,
)
from randsac_mm.segments.config import with_segments

from ..models.helpers import tiny_cfg


@dataclass(frozen=True)
class Stripes(SegmentScheme):
    """Horizontal stripes of ``rows_per_stripe`` token rows."""
    rows_per_stripe: int = 1

    def check(self):
        rows = self.grid[0]
        if not 1 <= self.rows_per_stripe <= rows // 2 or \
                rows % self.rows_per_stripe:
            raise ValueError(
                f'rows_per_stripe must divide the {rows} token rows into 2 '
                f'or more stripes, got {self.rows_per_stripe!r}')

    @property
    def nominal_segments(self):
        return self.grid[0] // self.rows_per_stripe

    def draw(self, rng):
        rows, cols = self.grid
        stripe_of_row = np.arange(rows) // self.rows_per_stripe
        return np.repeat(stripe_of_row, cols), []  # flat: no hierarchy


@pytest.fixture(autouse=True, scope='module')
def stripes():
    register_scheme('stripes')(Stripes)
    yield
    SEGMENT_SCHEMES.unregister('stripes')


def test_stripes_layouts():
    spec = SegmentSpec((4, 6), 'stripes', rows_per_stripe=2,
                       serialization='raster')
    layout = make_layout(spec, np.random.default_rng(0))
    assert layout.token_rank.reshape(4, 6).tolist() == [[0] * 6] * 2 + \
        [[1] * 6] * 2
    spec = SegmentSpec((8, 8), 'stripes', rows_per_stripe=2)
    rng = np.random.default_rng(0)
    orders = {tuple(make_layout(spec, rng).order) for _ in range(50)}
    assert all(sorted(order) == [0, 1, 2, 3] for order in orders)
    assert len(orders) > 1  # random order over the 4 stripes
    shuffled = make_layout(SegmentSpec((8, 8), 'stripes', coherent=False),
                           rng)
    assert np.bincount(shuffled.segment_ids).tolist() == [8] * 8


@pytest.mark.parametrize('kwargs, message', [
    (dict(segment='stripes', square_size=2),
     "segment='stripes' has no option square_size; its options: "
     'rows_per_stripe'),
    (dict(segment='square', rows_per_stripe=2),
     "segment='square' has no option rows_per_stripe"),
    (dict(segment='stripes', rows_per_stripe=3),
     'rows_per_stripe must divide the 8 token rows into 2 or more stripes'),
])
def test_options_that_do_not_apply_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SegmentSpec((8, 8), **kwargs)


def test_a_tiny_randsac_trains_a_step_on_stripes():
    """Through a config's pipeline (with_segments now takes the new
    option) into one optimizer step of a tiny RandSAC."""
    step = dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4)
    pipeline = Compose(with_segments(
        [step, dict(type='PackInputs', algorithm_keys=['token_rank'])],
        segment='stripes', rows_per_stripe=1))
    np.random.seed(0)
    batch = default_collate([
        pipeline(dict(img=np.random.randint(0, 256, (32, 32, 3), np.uint8)))
        for _ in range(4)])
    assert sorted(set(batch['data_samples'][0].token_rank)) == \
        list(range(8))  # 8 stripes of one token row
    torch.manual_seed(0)
    model = MODELS.build(dict(
        tiny_cfg(), data_preprocessor=dict(
            type='SelfSupDataPreprocessor', mean=[127.5] * 3,
            std=[127.5] * 3))).train()
    before = [p.detach().clone() for p in model.parameters()]
    optim = OptimWrapper(torch.optim.AdamW(model.parameters(), lr=1e-3))
    loss = model.train_step(batch, optim)['loss']
    assert torch.isfinite(loss)
    assert any(not torch.equal(a, p) for a, p in zip(before,
                                                      model.parameters()))
