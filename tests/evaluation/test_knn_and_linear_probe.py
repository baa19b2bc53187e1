"""The reusable frozen-feature evaluations: weighted k-NN, linear probe."""
import pytest
import torch

from randsac_mm.evaluation import knn_accuracy, linear_probe_accuracy
from randsac_mm.evaluation.frozen_features import pooled


def blobs(per_class, classes=4, dims=16, spread=0.3, seed=0):
    generator = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, dims, generator=generator) * 3
    labels = torch.arange(classes).repeat_interleave(per_class)
    noise = torch.randn(len(labels), dims, generator=generator) * spread
    return centres[labels] + noise, labels


def test_knn_separates_clusters():
    train, test = blobs(30, seed=0), blobs(10, seed=0)
    assert knn_accuracy(*train, *test, k=20) == 100.0


def test_knn_votes_are_weighted_by_similarity():
    # Two class-0 neighbours far off, one class-1 neighbour almost equal.
    train = torch.tensor([[1.0, 0.0], [0.95, 0.3], [0.1, 1.0]])
    labels = torch.tensor([0, 0, 1])
    test, truth = torch.tensor([[0.0, 1.0]]), torch.tensor([1])
    assert knn_accuracy(train, labels, test, truth, k=3) == 100.0
    # With a flat vote (huge temperature) the majority wins.
    assert knn_accuracy(train, labels, test, truth, k=3,
                        temperature=1e6) == 0.0


def test_knn_uses_cosine_similarity():
    train = torch.tensor([[1.0, 0.0], [0.0, 10.0]])
    labels = torch.tensor([0, 1])
    # Closer to [1, 0] in Euclidean distance, but pointing along [0, 10].
    test = torch.tensor([[0.1, 0.5]])
    assert knn_accuracy(train, labels, test, torch.tensor([1]), k=1) == 100.0


@pytest.mark.parametrize('kwargs, message', [
    (dict(k=0), r'k must be an int in \[1, 3\]'),
    (dict(k=4), r'k must be an int in \[1, 3\]'),
    (dict(k=2, temperature=0), 'temperature must be > 0'),
])
def test_knn_bad_arguments(kwargs, message):
    x, y = torch.eye(3), torch.arange(3)
    with pytest.raises(ValueError, match=message):
        knn_accuracy(x, y, x, y, **kwargs)


def test_linear_probe_learns_separable_features_and_not_noise():
    train, test = blobs(50, seed=1), blobs(25, seed=1)
    assert linear_probe_accuracy(*train, *test, epochs=20,
                                 warmup_epochs=2) >= 98.0
    # Labels unrelated to the features: no better than chance (25%).
    shuffled = (train[0], train[1][torch.randperm(len(train[1]))])
    noise = linear_probe_accuracy(*shuffled, test[0], test[1][torch.randperm(
        len(test[1]))], epochs=20, warmup_epochs=2)
    assert noise < 50.0


def test_linear_probe_is_seeded_and_checks_its_schedule():
    train, test = blobs(20, spread=3.0, seed=2), blobs(20, spread=3.0,
                                                      seed=3)
    a = linear_probe_accuracy(*train, *test, epochs=5, warmup_epochs=1)
    assert a == linear_probe_accuracy(*train, *test, epochs=5,
                                      warmup_epochs=1)
    with pytest.raises(ValueError, match='warmup_epochs < epochs'):
        linear_probe_accuracy(*train, *test, epochs=5, warmup_epochs=5)


def test_features_are_averaged_over_positions():
    featmap = torch.arange(2 * 3 * 4, dtype=torch.float).view(2, 3, 2, 2)
    assert torch.equal(pooled(featmap), featmap.flatten(2).mean(2))
    tokens = featmap.flatten(2).transpose(1, 2)  # [B, N, C]
    assert torch.equal(pooled(tokens), featmap.flatten(2).mean(2))
    assert torch.equal(pooled(featmap[:, :, 0, 0]), featmap[:, :, 0, 0])
