"""The attentive probe and the per-layer probe, on features and on a
model's frozen encoder."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from randsac_mm.evaluation import (
    AttentivePoolingHead,
    attentive_probe_accuracy,
    evaluate_frozen,
    extract_layer_features,
    linear_probe_accuracy,
)


def marked_tokens(n, classes=4, tokens=8, dims=16, seed=0):
    """Each image's class is in one token, at a random position, flagged by
    channel 0; the other tokens carry other classes' vectors. The average
    of the tokens hides the class; attention to the flagged token finds
    it."""
    generator = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, dims,
                          generator=torch.Generator().manual_seed(99)) * 2
    centres[:, 0] = 0
    labels = torch.randint(classes, (n, ), generator=generator)
    x = centres[torch.randint(classes, (n, tokens), generator=generator)]
    where = torch.randint(tokens, (n, ), generator=generator)
    x[torch.arange(n), where] = centres[labels]
    x[torch.arange(n), where, 0] = 4.0
    return x + 0.3 * torch.randn(x.shape, generator=generator), labels


def test_attention_finds_the_token_the_average_hides():
    train, test = marked_tokens(800, seed=0), marked_tokens(400, seed=1)
    attentive = attentive_probe_accuracy(*train, *test, epochs=60,
                                         warmup_epochs=3, lr=1e-2)
    linear = linear_probe_accuracy(train[0].mean(1), train[1],
                                   test[0].mean(1), test[1], epochs=60,
                                   warmup_epochs=3)
    assert attentive >= 98.0 and linear < 70.0
    # Seeded: the same accuracy again.
    assert attentive == attentive_probe_accuracy(
        *train, *test, epochs=60, warmup_epochs=3, lr=1e-2)


def test_the_head_pools_with_one_learned_query():
    head = AttentivePoolingHead(16, 4, num_heads=4).eval()
    tokens = torch.randn(3, 8, 16)
    pooled = head.pool(tokens)
    assert pooled.shape == (3, 16) and head(tokens).shape == (3, 4)
    # A permutation of the tokens pools to the same vector (no positions).
    assert torch.allclose(head.pool(tokens[:, torch.randperm(8)]), pooled,
                          atol=1e-6)
    assert {n for n, _ in head.named_parameters()} == {
        'query', 'key.weight', 'value.weight', 'classifier.weight'}
    with pytest.raises(ValueError, match=r'num_heads \(5\) must divide'):
        AttentivePoolingHead(16, 4, num_heads=5)


class UnfoldedHead(nn.Module):
    """AIM's attention pooling as written (apple/ml-aim): BatchNorm without
    affine parameters, key and value projections of every token, scaled
    dot-product attention; with the weights of ``head``."""

    def __init__(self, head):
        super().__init__()
        self.head = head
        self.norm = nn.BatchNorm1d(head.query.shape[-1], affine=False,
                                   eps=1e-6)

    def forward(self, tokens):
        b, n, c = tokens.shape
        x = self.norm(tokens.transpose(1, 2)).transpose(1, 2)

        def heads(t):
            h = self.head.num_heads
            return t.reshape(b, -1, h, c // h).transpose(1, 2)

        pooled = F.scaled_dot_product_attention(
            heads(self.head.query.expand(b, -1, -1)),
            heads(self.head.key(x)), heads(self.head.value(x)))
        return self.head.classifier(pooled.transpose(1, 2).reshape(b, c))


def test_the_folded_head_computes_aims_head():
    torch.manual_seed(0)
    head = AttentivePoolingHead(16, 5, num_heads=4)
    reference = UnfoldedHead(head)
    # Tokens far from zero mean and unit scale, as a ViT's are per channel.
    batches = [torch.randn(6, 9, 16) * torch.rand(16) * 3 + torch.randn(16)
               for _ in range(3)]
    for tokens in batches:  # training: the batch's statistics
        folded = head(tokens)
        grads = torch.autograd.grad(folded.square().sum(),
                                    list(head.parameters()))
        unfolded = reference(tokens)
        expected = torch.autograd.grad(unfolded.square().sum(),
                                       list(head.parameters()))
        torch.testing.assert_close(folded, unfolded, atol=1e-5, rtol=1e-5)
        for got, want in zip(grads, expected):
            torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-4)
    # The running statistics are BatchNorm's, and eval mode uses them.
    torch.testing.assert_close(head.running_mean, reference.norm.running_mean)
    torch.testing.assert_close(head.running_var, reference.norm.running_var)
    head.eval(), reference.eval()
    torch.testing.assert_close(head(batches[0]), reference(batches[0]),
                               atol=1e-5, rtol=1e-5)


def test_attentive_probe_refuses_pooled_features():
    x, y = torch.randn(8, 16), torch.arange(8) % 2
    with pytest.raises(ValueError, match=r'train_tokens must be \[N, L, C\]'):
        attentive_probe_accuracy(x, y, x, y, epochs=2, warmup_epochs=0)


@pytest.fixture(scope='module')
def digits_loaders():
    from mmengine.registry import DefaultScope
    from mmengine.runner import Runner

    import randsac_mm.registration  # noqa: F401  (registers the dataset)
    loaders = []
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        for split, count in (('train', 200), ('test', 100)):
            loaders.append(Runner.build_dataloader(dict(
                batch_size=64, num_workers=0,
                sampler=dict(type='DefaultSampler', shuffle=False),
                collate_fn=dict(type='default_collate'),
                dataset=dict(type='DigitsDataset', split=split, img_size=32,
                             indices=count,
                             pipeline=[dict(type='PackInputs')])), seed=0))
    return loaders


def test_frozen_readouts_of_a_model(digits_loaders):
    from ..models.helpers import build_model
    model = build_model('skip', enc_layers=3)
    result = evaluate_frozen(model, *digits_loaders, probe_epochs=10,
                             readouts=('attentive', 'layers'))
    assert set(result) == {'attentive', 'layer_linear', 'best_layer',
                           'feature_dim'}
    assert 0 <= result['attentive'] <= 100
    assert len(result['layer_linear']) == 3
    assert result['layer_linear'][result['best_layer'] - 1] == \
        max(result['layer_linear'])
    # The last layer's entry is the linear readout's feature (final-normed
    # tokens, averaged): the same accuracy.
    linear = evaluate_frozen(model, *digits_loaders, probe_epochs=10,
                             readouts=('linear', ))['linear']
    assert result['layer_linear'][-1] == pytest.approx(linear, abs=1e-6)
    # The feature width is reported whatever the readouts (the tool
    # prints it).
    assert evaluate_frozen(model, *digits_loaders, probe_epochs=1,
                           readouts=('layers', ))['feature_dim'] == 32
    with pytest.raises(ValueError, match=r"readouts: unknown \['cka'\]"):
        evaluate_frozen(model, *digits_loaders, readouts=('cka', ))


def test_layer_features_are_each_layers_normed_average(digits_loaders):
    from ..models.helpers import build_model
    model = build_model('skip', enc_layers=2)
    features, labels = extract_layer_features(model, digits_loaders[1])
    assert features.shape == (100, 2, 32) and len(labels) == 100
    batch = next(iter(digits_loaders[1]))
    images = model.data_preprocessor(batch, False)['inputs']
    x = model.backbone.embed_tokens(images)
    first = model.backbone.layers[0](x)
    expected = model.backbone.ln1(first).mean(1)
    torch.testing.assert_close(features[:64, 0], expected, rtol=1e-5,
                               atol=1e-5)


def test_features_extracted_once_serve_every_probe_seed(digits_loaders):
    # Each seed's readout of the shared features is a fresh evaluation's:
    # reading out one seed leaves the features as they were.
    from randsac_mm.evaluation import extract_readout_features, read_out

    from ..models.helpers import build_model
    model = build_model('skip', enc_layers=2)
    readouts = ('linear', 'knn', 'attentive', 'layers')
    features = extract_readout_features(model, *digits_loaders, readouts)
    assert set(features) == {'pooled', 'tokens', 'layers'}
    assert features['tokens'][0][0].shape[:2] == (200, 64)  # 32/4 squared
    for seed in (0, 1):
        assert read_out(features, readouts, probe_epochs=5, seed=seed) == \
            evaluate_frozen(model, *digits_loaders, probe_epochs=5,
                            seed=seed, readouts=readouts)


def test_mean_over_probe_seeds():
    from randsac_mm.evaluation import mean_over_probe_seeds
    runs = [dict(linear=80.0, knn=70.0, layer_linear=[90.0, 82.0],
                 best_layer=1, feature_dim=32),
            dict(linear=82.0, knn=70.0, layer_linear=[60.0, 80.0],
                 best_layer=2, feature_dim=32)]
    result = mean_over_probe_seeds(runs, [3, 4])
    assert result['linear'] == 81.0 and result['knn'] == 70.0
    assert result['probe_seed_sd'] == pytest.approx(
        dict(linear=2 ** 0.5, knn=0.0))
    # Per layer means (75, 81): the best layer is the best mean's.
    assert result['layer_linear'] == [75.0, 81.0]
    assert result['best_layer'] == 2
    assert result['probe_seeds'] == [3, 4] and result['per_probe_seed'] == runs
    assert result['feature_dim'] == 32
    assert mean_over_probe_seeds(runs[:1], [3])['probe_seed_sd'] == dict(
        linear=0.0, knn=0.0)


def test_an_empty_or_repeating_list_of_probe_seeds_is_refused():
    # Refused before any feature is extracted (no model or data needed).
    from randsac_mm.evaluation import evaluate_frozen
    with pytest.raises(ValueError, match='probe_seeds: give at least one'):
        evaluate_frozen(None, None, None, probe_seeds=[])
    with pytest.raises(ValueError,
                       match=r'probe_seeds must be distinct, got \[2, 2\]'):
        evaluate_frozen(None, None, None, probe_seeds=(2, 2))


@pytest.mark.skipif(not torch.cuda.is_available(), reason='needs a GPU')
def test_probes_on_a_gpu_read_out_what_they_read_on_the_cpu(digits_loaders):
    """The probes train where the features are (probe_device): the same
    batch order and initialisation, so the same accuracies up to the GPU's
    arithmetic."""
    from ..models.helpers import build_model
    model = build_model('skip', enc_layers=2)
    readouts = ('linear', 'knn', 'attentive', 'layers')
    cpu = evaluate_frozen(model, *digits_loaders, probe_epochs=5,
                          readouts=readouts)
    gpu = evaluate_frozen(model, *digits_loaders, probe_epochs=5,
                          readouts=readouts, probe_device='cuda')
    assert set(gpu) == set(cpu)
    for name in ('linear', 'knn', 'attentive'):
        assert gpu[name] == pytest.approx(cpu[name], abs=2.0), name

