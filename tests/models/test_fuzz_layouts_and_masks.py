"""Fuzzing the segment generator and the mask builder together.

Thousands of random valid specs go through the data-pipeline transform
(``RandSACSegmentGenerator``) into ``SegmentBatch``, with every batch
option. Each case checks the layout invariants and every mask entry against
the rules, so no query may see a later segment (or, in cross-attention, its
own), no query row is empty, and no token that should be predicted or read
is cut away.
"""
import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from randsac_mm.datasets import RandSACSegmentGenerator
from randsac_mm.models.attention import build_attention_kernel
from randsac_mm.models.utils import SegmentBatch

from ..segments.strategies import seeds, specs

FUZZ = settings(max_examples=2500, deadline=None)


def generate(spec, seed, batch_size):
    """token_rank [B, N] through the transform."""
    transform = RandSACSegmentGenerator(
        input_size=spec.grid, patch_size=1, segment=spec.segment,
        serialization=spec.serialization, coherent=spec.coherent,
        **spec.options)
    np.random.seed(seed % 2**32)
    ranks = []
    for _ in range(batch_size):
        out = transform(dict(img=np.zeros((*spec.grid, 3), np.uint8)))
        ranks.append(out['token_rank'])
        check_layout(out['token_rank'], spec)
    return torch.as_tensor(np.stack(ranks))


def check_layout(rank, spec):
    n = spec.grid[0] * spec.grid[1]
    assert rank.shape == (n, ) and rank.dtype == np.int64
    # Steps are 0..S-1, one per segment, every segment non-empty (that a
    # segment's tokens share a step: tests/segments).
    steps = np.unique(rank)
    assert np.array_equal(steps, np.arange(len(steps)))
    if spec.segment == 'blob':
        assert 2 <= len(steps) <= spec.num_segments
    else:
        assert len(steps) == spec.nominal_segments


def allowed(mask):
    """Boolean form of a mask of either kernel, [B', Lq, Lk]."""
    mask = mask[:, 0]
    return mask if mask.dtype == torch.bool else mask == 0


def check_batch(batch, ranks):
    b, n = ranks.shape
    order = batch.order
    assert torch.equal(order.sort(1).values, torch.arange(n).expand(b, n))
    assert torch.equal(ranks.gather(1, order), batch.sorted_rank)
    assert (batch.sorted_rank.diff(dim=1) >= 0).all()
    enc_rank = ranks.gather(1, batch.encoder_order)  # [B, Le]
    dec_rank = ranks.gather(1, batch.decoder_order)  # [B, Ld]
    last = ranks.max(1, keepdim=True).values
    for s in range(b):
        # Every token a prediction may read is encoded; every token to
        # predict is decoded and scored.
        readable = set(torch.nonzero(ranks[s] < last[s]).flatten().tolist())
        assert readable <= set(batch.encoder_order[s].tolist())
        scored = set(batch.decoder_order[s][batch.loss_mask[s]].tolist())
        assert scored == set(torch.nonzero(ranks[s] >= 1).flatten().tolist())
    assert torch.equal(batch.loss_mask, dec_rank >= 1)

    q, k = enc_rank[:, :, None], enc_rank[:, None, :]
    expect_enc = k <= q
    q, k = dec_rank[:, :, None], dec_rank[:, None, :]
    eye = torch.eye(q.shape[1], dtype=torch.bool)
    expect_dec = ((k >= 1) & (k <= q)) | eye
    k = enc_rank[:, None, :]
    expect_cross = (k < q) | ((q == 0) & (k == 0))
    for mask, expect, future in (
            (batch.encoder_mask, expect_enc, None),
            (batch.decoder_mask, expect_dec, None),
            (batch.cross_mask, expect_cross, 'own')):
        got = allowed(mask).expand_as(expect)
        assert torch.equal(got, expect)
        assert got.any(-1).all()  # no empty row (NaN softmax)
    # No look-ahead, stated directly on ranks: no allowed later key; in
    # cross-attention no allowed key of the own or a later segment for the
    # predicted queries.
    enc_rank_k = enc_rank[:, None, :]
    assert not (allowed(batch.encoder_mask).expand_as(expect_enc)
                & (enc_rank_k > enc_rank[:, :, None])).any()
    assert not (allowed(batch.decoder_mask).expand_as(expect_dec)
                & (dec_rank[:, None, :] > dec_rank[:, :, None])).any()
    predicted_rows = (dec_rank >= 1)[:, :, None]
    assert not (allowed(batch.cross_mask).expand_as(expect_cross)
                & predicted_rows & (enc_rank_k >= q)).any()


@FUZZ
@given(spec=specs(), seed=seeds, batch_size=st.integers(1, 4),
       trim=st.booleans(),
       attention=st.sampled_from(['sdpa', 'explicit']))
def test_generated_layouts_give_rule_abiding_masks(spec, seed, batch_size,
                                                   trim, attention):
    ranks = generate(spec, seed, batch_size)
    batch = SegmentBatch(ranks, build_attention_kernel(attention),
                         trim_outer_segments=trim)
    check_batch(batch, ranks)


def test_the_checker_catches_a_leaking_mask():
    """The fuzz test's checker fails on a mask that lets a query see the
    next segment (so the property above is not vacuous)."""
    from randsac_mm.segments import SegmentSpec
    spec = SegmentSpec(grid=(4, 4), segment='square', square_size=2)
    ranks = generate(spec, 0, 2)
    batch = SegmentBatch(ranks, build_attention_kernel('sdpa'))
    leaking = batch.cross_mask | torch.ones_like(batch.cross_mask)
    batch.cross_attention.mask = leaking
    try:
        check_batch(batch, ranks)
    except AssertionError:
        return
    raise AssertionError('a mask that sees the future passed the checks')
