"""Masks from token_rank, against the paper's listing built independently."""
import numpy as np
import pytest
import torch

from randsac_mm.models.attention import build_attention_kernel
from randsac_mm.models.utils import SegmentBatch
from randsac_mm.segments import SegmentSpec, make_layout

SDPA = build_attention_kernel('sdpa')


def listing_block_mask(num_segments, segment_size):
    """The paper's listing: a causal mask over K - 1 segments, each entry
    repeated M*M times; True where attention is allowed."""
    causal = torch.nn.Transformer.generate_square_subsequent_mask(
        num_segments - 1)
    blocks = causal.repeat_interleave(segment_size, 0).repeat_interleave(
        segment_size, 1)
    return blocks == 0


@pytest.mark.parametrize('grid, m', [((8, 8), 2), ((8, 8), 4), ((12, 12), 3),
                                     ((6, 4), 2)])
def test_flat_square_masks_equal_the_listing(grid, m):
    rng = np.random.default_rng(0)
    spec = SegmentSpec(grid, 'square', square_size=m)
    ranks = torch.as_tensor(np.stack(
        [make_layout(spec, rng).token_rank for _ in range(3)]))
    batch = SegmentBatch(ranks, SDPA)
    k, size = spec.nominal_segments, m * m
    expected = listing_block_mask(k, size)
    assert batch.enc_len == (k - 1) * size and batch.dec_start == size
    for mask in (batch.encoder_mask, batch.decoder_mask, batch.cross_mask):
        assert mask.shape == (3, 1) + expected.shape
        for sample_mask in mask:
            assert torch.equal(sample_mask[0], expected)
    assert batch.loss_mask.all()


def test_sorted_order_follows_serialization():
    ranks = torch.tensor([[2, 0, 1, 1, 0, 2]])
    batch = SegmentBatch(ranks, SDPA)
    assert batch.sorted_rank.tolist() == [[0, 0, 1, 1, 2, 2]]
    assert batch.order.tolist() == [[1, 4, 2, 3, 0, 5]]
    assert batch.encoder_order.tolist() == [[1, 4, 2, 3]]
    assert batch.decoder_order.tolist() == [[2, 3, 0, 5]]


def test_unequal_segments_get_per_sample_masks_without_empty_rows():
    # Sample 0: first segment 1 token, last 3; sample 1: first 3, last 1.
    ranks = torch.tensor([[0, 1, 1, 1, 2, 2, 2, 2],
                          [0, 0, 0, 1, 1, 1, 1, 2]])
    batch = SegmentBatch(ranks, SDPA)
    assert batch.enc_len == 7 and batch.dec_start == 1
    for mask in (batch.encoder_mask, batch.decoder_mask, batch.cross_mask):
        assert mask.shape[0] == 2
        assert mask.any(-1).all(), 'a query row sees nothing'
    # Sample 1's decoder rows 0 and 1 are first-segment tokens: not
    # predicted, and invisible to the other queries.
    assert batch.loss_mask.tolist() == [[True] * 7,
                                        [False, False] + [True] * 5]
    dec = batch.decoder_mask[1, 0]
    assert not dec[2:, :2].any()
    # Cross-attention: strictly earlier segments for predicted rows.
    enc_rank = batch.encoder_rank[1]
    for q, rq in enumerate(batch.decoder_rank[1].tolist()):
        if rq >= 1:
            assert batch.cross_mask[1, 0, q].tolist() == \
                (enc_rank < rq).tolist()


def test_single_segment_layout_is_rejected():
    with pytest.raises(ValueError, match='at least 2 segments'):
        SegmentBatch(torch.zeros(2, 4, dtype=torch.long), SDPA)


def test_untrimmed_batch_keeps_every_token():
    ranks = torch.tensor([[2, 0, 1, 1, 0, 2]])
    batch = SegmentBatch(ranks, SDPA, trim_outer_segments=False)
    assert (batch.enc_len, batch.dec_start) == (6, 0)
    assert batch.loss_mask.tolist() == [[False, False, True, True, True,
                                         True]]
    # Same rules: the first segment's queries see only the first segment.
    assert batch.cross_mask[0, 0, 0].tolist() == [True, True, False, False,
                                                  False, False]
    assert batch.cross_mask.any(-1).all()
