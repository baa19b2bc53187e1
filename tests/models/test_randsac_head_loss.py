"""GlobalTokenMSELoss: the MSE over the predicted tokens of the global
batch, whatever each process's share of them."""
import pytest
import torch

from randsac_mm.models.heads import GlobalTokenMSELoss, randsac_head


def test_one_process_gives_the_mse_over_the_masked_tokens():
    pred = torch.zeros(1, 3, 48)
    target = torch.stack([torch.full((48, ), v)
                          for v in (1.0, 2.0, 100.0)])[None]
    mask = torch.tensor([[True, True, False]])
    assert GlobalTokenMSELoss()(pred, target, mask).item() == \
        pytest.approx(2.5)


def test_no_token_gives_zero_not_nan():
    loss = GlobalTokenMSELoss()(torch.ones(2, 3, 4), torch.zeros(2, 3, 4),
                                torch.zeros(2, 3, dtype=torch.bool))
    assert loss.item() == 0


def test_low_precision_inputs_give_a_float32_loss():
    loss = GlobalTokenMSELoss()(torch.ones(1, 2, 4, dtype=torch.bfloat16),
                                torch.zeros(1, 2, 4, dtype=torch.bfloat16),
                                torch.ones(1, 2, dtype=torch.bool))
    assert loss.dtype == torch.float32 and loss.item() == 1


def fake_world(monkeypatch, counts):
    """Two processes, whose masks hold ``counts`` tokens: all_reduce sums
    the count over them."""
    monkeypatch.setattr(randsac_head, 'is_distributed', lambda: True)
    monkeypatch.setattr(randsac_head, 'get_world_size',
                        lambda: len(counts))

    def all_reduce(tensor):
        tensor.fill_(sum(counts))

    monkeypatch.setattr(randsac_head, 'all_reduce', all_reduce)


def test_ddp_average_of_the_process_gradients_is_the_global_batch_mse(
        monkeypatch):
    """Processes with 5 and 1 predicted tokens: the mean of their losses
    (and gradients, as DDP averages them) is the MSE over the 6 tokens,
    where per-process means would weight the lone token five times."""
    gen = torch.Generator().manual_seed(0)
    preds = [torch.randn(1, 6, 8, generator=gen, requires_grad=True)
             for _ in range(2)]
    targets = [torch.randn(1, 6, 8, generator=gen) for _ in range(2)]
    masks = [torch.tensor([[True] * 5 + [False]]),
             torch.tensor([[False, True] + [False] * 4])]
    fake_world(monkeypatch, [5, 1])
    loss = GlobalTokenMSELoss()
    ddp = sum(loss(p, t, m) for p, t, m in zip(preds, targets, masks)) / 2
    ddp_grads = torch.autograd.grad(ddp, preds)
    monkeypatch.setattr(randsac_head, 'is_distributed',
                        lambda: False)
    whole = loss(torch.cat(preds), torch.cat(targets), torch.cat(masks))
    whole_grads = torch.autograd.grad(whole, preds)
    torch.testing.assert_close(ddp, whole)
    for got, expected in zip(ddp_grads, whole_grads):
        torch.testing.assert_close(got, expected)
    local_means = sum(loss(p, t, m) for p, t, m in
                      zip(preds, targets, masks)) / 2
    assert not torch.allclose(local_means, whole)


def test_is_registered_for_configs():
    from mmpretrain.registry import MODELS

    import randsac_mm.models  # noqa: F401
    assert isinstance(MODELS.build(dict(type='GlobalTokenMSELoss')),
                      GlobalTokenMSELoss)
