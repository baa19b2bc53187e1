"""An attentive probe: a learned query attends to the frozen tokens.

Autoregressive encoders keep their information spread over the tokens,
which the average of a linear probe blurs; AIM (El-Nouby et al., 2024)
evaluates with attention pooling instead. The head follows AIM's
``AttentionPoolingClassifier`` (apple/ml-aim, ``aim/v1/torch/layers.py``):
the tokens are normalised per channel by a BatchNorm without affine
parameters; one learned query (drawn with std 0.02, used as the query
itself, no projection) attends over heads to key and value projections of
the tokens (no biases); a linear layer without bias classifies the pooled
vector. It trains on cached frozen tokens (no augmentation), as our
linear probe does: AdamW, linear warmup, cosine decay. The optimiser
settings (``attentive_probe_accuracy`` defaults) are ours, for small-scale
studies: the learning rate is the best of {3e-4, 1e-3, 3e-3} (77.99,
81.47, 82.19% test accuracy) on one study checkpoint (patch-random, seed 0,
30 epochs; its linear probe: 79.95%). AIM trains its probes with
augmentation on ImageNet-scale data.

The head computes AIM's function without forming what makes it slow on a
CPU: the normalised tokens and their key and value projections (two
[B, N, C] x [C, C] products a step). The query against each head's keys is
one vector per head applied to the tokens, and the values' weighted sum is
the value projection of the tokens' weighted sum; the normalisation's
scale folds into both and its shift cancels in the softmax. The same
function, faster on a CPU (docs/small_scale_study.md, "The attentive
probe, computed cheaply").
"""
import torch
from torch import nn

from .probe_training import (
    check_schedule,
    held_out_accuracy,
    train_on_features,
)
from .progress import epoch_count, stage
from .readout_registry import Readout, register_readout

__all__ = ['AttentivePoolingHead', 'AttentiveProbe',
           'attentive_probe_accuracy']


class AttentivePoolingHead(nn.Module):
    """Attention pooling and a linear classifier over frozen tokens.

    Args:
        channels (int): token width C.
        num_classes (int): classes.
        num_heads (int): attention heads (must divide C).
        eps (float): added to the variance (AIM's BatchNorm: 1e-6).
        momentum (float): of the running statistics, as BatchNorm's.
    """

    def __init__(self, channels, num_classes, num_heads=4, eps=1e-6,
                 momentum=0.1):
        super().__init__()
        if channels % num_heads:
            raise ValueError(f'num_heads ({num_heads}) must divide the token '
                             f'width ({channels})')
        self.num_heads, self.eps, self.momentum = num_heads, eps, momentum
        # BatchNorm1d(channels, affine=False)'s statistics, applied folded.
        self.register_buffer('running_mean', torch.zeros(channels))
        self.register_buffer('running_var', torch.ones(channels))
        self.query = nn.Parameter(torch.randn(1, 1, channels) * 0.02)
        self.key = nn.Linear(channels, channels, bias=False)
        self.value = nn.Linear(channels, channels, bias=False)
        self.classifier = nn.Linear(channels, num_classes, bias=False)

    def channel_statistics(self, tokens):
        """The per-channel mean and variance [C] that normalise ``tokens``
        [B, N, C], as BatchNorm's: in training the batch's over B x N
        (updating the running estimates with the unbiased variance), in
        eval the running estimates."""
        if not self.training:
            return self.running_mean, self.running_var
        flat = tokens.reshape(-1, tokens.shape[-1])
        # Two passes of sums: torch.var_mean over dim 0 of this layout is
        # 10x slower on a CPU than the whole attention.
        mean = flat.mean(0)
        var = (flat - mean).square().mean(0)
        with torch.no_grad():
            unbiased = var * len(flat) / max(len(flat) - 1, 1)
            self.running_mean.lerp_(mean, self.momentum)
            self.running_var.lerp_(unbiased, self.momentum)
        return mean, var

    def pool(self, tokens):
        """[B, N, C] -> the attention-pooled vector [B, C]: per head h
        (width d = C / h), softmax over the tokens of q_h . K_h x_n / sqrt(d)
        weighting V_h x_n, with x_n the normalised tokens."""
        b, _, c = tokens.shape
        h, d = self.num_heads, c // self.num_heads
        mean, var = self.channel_statistics(tokens)
        scale = (var + self.eps).rsqrt()  # [C]
        # q_h . K_h ((x - mean) * scale) = x . (K_h^T q_h * scale) + a term
        # the same for every token, which the softmax ignores.
        key = self.key.weight.reshape(h, d, c)
        query_key = (self.query.reshape(h, 1, d) @ key).squeeze(1)  # [h, C]
        logits = tokens @ (query_key * scale * d ** -0.5).T  # [B, N, h]
        attention = logits.transpose(1, 2).softmax(-1)  # [B, h, N]
        # The attention sums to 1, so the weighted sum normalises after.
        mixed = (attention @ tokens - mean) * scale  # [B, h, C]
        value = self.value.weight.reshape(h, d, c)
        return torch.einsum('bhc,hdc->bhd', mixed, value).reshape(b, c)

    def forward(self, tokens):
        """[B, N, C] -> logits [B, num_classes]."""
        return self.classifier(self.pool(tokens))


def attentive_probe_accuracy(train_tokens, train_labels, test_tokens,
                             test_labels, epochs=90, warmup_epochs=10,
                             batch_size=256, lr=3e-3, weight_decay=0.05,
                             num_heads=4, seed=0, tick=None):
    """Top-1 accuracy (%) of an attentive probe on frozen tokens.

    Args:
        train_tokens (torch.Tensor): [N_train, L, C].
        train_labels (torch.Tensor): int64 [N_train].
        test_tokens (torch.Tensor): [N_test, L, C].
        test_labels (torch.Tensor): int64 [N_test].
        epochs, warmup_epochs (int): schedule in passes over the tokens.
        batch_size (int): mini-batch size.
        lr (float): AdamW's peak learning rate.
        weight_decay (float): AdamW's, on the projections and classifier
            (not the query).
        num_heads (int): attention heads.
        seed (int): seeds the initialisation and the batch order.
        tick (Callable[[], None] | None): called after each epoch
            (progress).

    Returns:
        float: accuracy in percent.
    """
    check_schedule(epochs, warmup_epochs)
    if train_tokens.dim() != 3:
        raise ValueError(f'train_tokens must be [N, L, C], got shape '
                         f'{tuple(train_tokens.shape)}')
    generator = torch.Generator().manual_seed(seed)
    num_classes = int(max(train_labels.max(), test_labels.max())) + 1
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        head = AttentivePoolingHead(train_tokens.shape[-1], num_classes,
                                    num_heads)
    head.to(train_tokens.device)  # trained where the tokens are
    decayed = [p for n, p in head.named_parameters() if n != 'query']
    optimizer = torch.optim.AdamW(
        [dict(params=decayed), dict(params=[head.query], weight_decay=0.0)],
        lr=lr, weight_decay=weight_decay)
    train_on_features(head, optimizer, train_tokens, train_labels, epochs,
                      warmup_epochs, batch_size, lr, generator, tick)
    return held_out_accuracy(head, test_tokens, test_labels)


@register_readout('attentive')
class AttentiveProbe(Readout):
    """An attentive probe on the last layer's tokens."""
    title = 'attentive probe'
    features = 'tokens'

    def read(self, train, test, settings, report=None):
        epochs = settings['probe_epochs']
        return {'attentive': attentive_probe_accuracy(
            *train, *test, epochs=epochs,
            warmup_epochs=settings['warmup_epochs'], seed=settings['seed'],
            tick=stage(report, f'{self.title}: {epoch_count(epochs)} on '
                       f'{len(train[0])} x {train[0].shape[1]} tokens',
                       epochs))}
