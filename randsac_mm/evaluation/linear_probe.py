"""The paper's linear probe, trained on cached frozen features.

The model is the one of the linear-probe configs (``configs/benchmarks/
linear``): BatchNorm without affine parameters, then a linear classifier;
base lr 0.1 x batch / 256, momentum 0.9, no weight decay, linear warmup
then cosine decay. The optimizer is SGD rather than the paper's LARS: LARS
scales each step by the weight-to-gradient norm ratio, made for batch
16384, and in the ~2,000 steps of a small-scale probe it leaves the
classifier near its tiny initialisation (on one set of ViT-mini features:
41.9% with LARS, 75.5% with SGD, 76.6% for scikit-learn's logistic
regression). The encoder is frozen, so its features are computed once
(without augmentation) instead of every epoch: seconds instead of an
encoder pass per epoch, for small-scale studies.
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

__all__ = ['LinearProbe', 'linear_probe_accuracy']


def linear_probe_accuracy(train_features, train_labels, test_features,
                          test_labels, epochs=90, warmup_epochs=10,
                          batch_size=256, base_lr=0.1, seed=0, tick=None):
    """Top-1 accuracy (%) of a linear probe on frozen features.

    Args:
        train_features (torch.Tensor): [N_train, C].
        train_labels (torch.Tensor): int64 [N_train].
        test_features (torch.Tensor): [N_test, C].
        test_labels (torch.Tensor): int64 [N_test].
        epochs (int): training epochs (the paper: 90).
        warmup_epochs (int): linear warmup epochs (the paper: 10).
        batch_size (int): mini-batch size; lr = base_lr x batch_size / 256.
        base_lr (float): the paper's 0.1.
        seed (int): seeds the initialisation and the batch order.
        tick (Callable[[], None] | None): called after each epoch
            (progress).

    Returns:
        float: accuracy in percent.
    """
    check_schedule(epochs, warmup_epochs)
    generator = torch.Generator().manual_seed(seed)
    num_classes = int(max(train_labels.max(), test_labels.max())) + 1
    channels = train_features.shape[1]
    probe = nn.Sequential(nn.BatchNorm1d(channels, affine=False),
                          nn.Linear(channels, num_classes))
    with torch.no_grad():  # as the configs' TruncNormal(std=0.01)
        probe[1].weight.copy_(torch.randn(num_classes, channels,
                                          generator=generator) * 0.01)
        probe[1].bias.zero_()
    probe.to(train_features.device)  # trained where the features are
    lr = base_lr * batch_size / 256
    optimizer = torch.optim.SGD(probe.parameters(), lr=lr, momentum=0.9,
                                weight_decay=0)
    train_on_features(probe, optimizer, train_features, train_labels, epochs,
                      warmup_epochs, batch_size, lr, generator, tick)
    return held_out_accuracy(probe, test_features, test_labels)


@register_readout('linear')
class LinearProbe(Readout):
    """The paper's linear probe on the averaged last-layer tokens."""
    title = 'linear probe'

    def read(self, train, test, settings, report=None):
        epochs = settings['probe_epochs']
        return {'linear': linear_probe_accuracy(
            *train, *test, epochs=epochs,
            warmup_epochs=settings['warmup_epochs'], seed=settings['seed'],
            tick=stage(report, f'{self.title}: {epoch_count(epochs)} on '
                       f'{len(train[0])} features', epochs))}
