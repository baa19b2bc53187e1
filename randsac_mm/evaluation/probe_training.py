"""What the probes share: training a small classifier on cached frozen
features with a warmup-then-cosine schedule, and its test accuracy."""
import math

import torch
import torch.nn.functional as F

__all__ = ['check_schedule', 'held_out_accuracy', 'train_on_features']


def check_schedule(epochs, warmup_epochs):
    if epochs < 1 or not 0 <= warmup_epochs < epochs:
        raise ValueError(
            'need epochs >= 1 and 0 <= warmup_epochs < epochs, got '
            f'epochs={epochs}, warmup_epochs={warmup_epochs}')


def train_on_features(model, optimizer, inputs, labels, epochs,
                      warmup_epochs, batch_size, lr, generator, tick=None):
    """Trains ``model`` with cross-entropy on cached inputs: shuffled
    mini-batches drawn with ``generator``, the learning rate of every group
    set to ``lr`` x (linear warmup over ``warmup_epochs``, then cosine decay
    to 0) at each step.

    The batch order is drawn on the CPU (``generator`` is a CPU generator),
    so a probe trained on a GPU sees the batches it sees on the CPU.

    Args:
        inputs (torch.Tensor): [N, ...], cast to float per batch; the
            model is on their device.
        labels (torch.Tensor): int64 [N], on the same device.
        tick (Callable[[], None] | None): called after each epoch
            (progress).
    """
    steps_per_epoch = math.ceil(len(inputs) / batch_size)
    total, warmup = epochs * steps_per_epoch, warmup_epochs * steps_per_epoch
    step = 0
    model.train()
    for _ in range(epochs):
        order = torch.randperm(len(inputs), generator=generator)
        for start in range(0, len(order), batch_size):
            index = order[start:start + batch_size].to(inputs.device)
            if len(index) < 2:  # BatchNorm needs two samples
                continue
            if step < warmup:
                scale = (step + 1) / warmup
            else:
                scale = 0.5 * (1 + math.cos(math.pi * (step - warmup) /
                                            max(total - warmup, 1)))
            for group in optimizer.param_groups:
                group['lr'] = lr * scale
            loss = F.cross_entropy(model(inputs[index].float()),
                                   labels[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
        if tick is not None:
            tick()


@torch.no_grad()
def held_out_accuracy(model, inputs, labels, chunk=1024):
    """Top-1 accuracy (%) of ``model`` in eval mode, ``chunk`` inputs at a
    time."""
    model.eval()
    correct = 0
    for start in range(0, len(inputs), chunk):
        logits = model(inputs[start:start + chunk].float())
        correct += int((logits.argmax(1) == labels[start:start + chunk]).sum())
    return 100.0 * correct / len(inputs)
