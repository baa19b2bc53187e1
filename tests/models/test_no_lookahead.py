"""No look-ahead, exactly: a token's prediction has zero gradient with
respect to the pixels of every token whose segment comes at the same or a
later step (and of every other sample)."""
import pytest
import torch

from .helpers import LAYOUT_KINDS, build_model, layouts

PATCH = 4


def pixel_grad_per_token(model, images, token_rank, sample, position):
    """|d pred[sample, position] / d pixels| summed per (sample, token)."""
    images = images.clone().requires_grad_(True)
    batch = model.plan_batch(images, token_rank)
    pred = model.predict_segments(images, batch)
    pred[sample, position].sum().backward()
    g = images.grad.abs()  # [B, 3, 32, 32]
    b = g.shape[0]
    per_token = g.reshape(b, 3, 8, PATCH, 8, PATCH).sum((1, 3, 5))
    return per_token.reshape(b, 64), batch


def check_no_lookahead(model, kinds, seed=0):
    token_rank = torch.as_tensor(
        layouts([LAYOUT_KINDS[k] for k in kinds], seed=seed))
    images = torch.randn(len(kinds), 3, 32, 32,
                         generator=torch.Generator().manual_seed(seed))
    checked = 0
    for sample in range(len(kinds)):
        ranks = token_rank[sample]
        _, batch = pixel_grad_per_token(model, images, token_rank, sample, 0)
        predicted = batch.loss_mask[sample].nonzero().flatten().tolist()
        for position in predicted[::max(1, len(predicted) // 6)]:
            grad, _ = pixel_grad_per_token(model, images, token_rank, sample,
                                           position)
            token = batch.decoder_order[sample, position]
            step = ranks[token]
            future = ranks >= step
            assert torch.all(grad[sample][future] == 0), \
                f'{kinds[sample]}: step {step} sees its own or later segments'
            assert torch.all(torch.cat([grad[:sample], grad[sample + 1:]])
                             == 0), 'a prediction depends on another sample'
            # ... and it does see (some of) the earlier segments.
            assert grad[sample][~future].sum() > 0
            checked += 1
    assert checked >= len(kinds)


@pytest.mark.parametrize('variant', ['skip', 'plain', 'two_stream'])
@pytest.mark.parametrize('kind', sorted(LAYOUT_KINDS))
def test_no_lookahead_per_layout(variant, kind):
    model = build_model(variant)
    check_no_lookahead(model, [kind, kind])


@pytest.mark.parametrize('variant', ['skip', 'two_stream'])
def test_no_lookahead_in_a_batch_of_different_layouts(variant):
    model = build_model(variant)
    check_no_lookahead(model, ['blob', 'hier_square', 'shuffled', 'hier_blob',
                               'patch'], seed=3)
