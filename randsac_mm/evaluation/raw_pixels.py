"""The raw-pixel reference: the readouts of the images' own pixels.

A frozen encoder's readout means little alone. On small gray images a
logistic regression on the pixels is already strong, so every table of
readouts shows this line beside the encoders. The pixels are the labelled
loader's images as it gives them (gray values 0 to 255), flattened. The
readouts are the encoders' own: the linear probe, whose BatchNorm
standardises each pixel (so it is a logistic regression on standardised
pixels), and the cosine k-NN on the gray values.
"""
import torch

from .frozen_eval import read_out_over_seeds
from .frozen_features import stacked
from .probe_seeds import check_probe_seeds
from .readout_registry import READOUTS, check_readouts

__all__ = ['evaluate_pixels', 'pixel_features', 'pixel_readouts']


def pixel_readouts():
    """The readouts that read one vector an image ('pooled' features), in
    table order: those that apply to pixels."""
    return tuple(name for name, cls in READOUTS.items()
                 if cls.features == 'pooled')


@torch.no_grad()
def pixel_features(dataloader):
    """The loader's images as flat float vectors, and their labels.

    Gray images that the pipeline copied into three channels (the small
    sets' 32 px digits and clothes) count each pixel once: three copies of
    a feature change what the probe's SGD learns, and one copy reads out
    higher (80.32% against 79.18% on the small-scale study's
    Fashion-MNIST), so the reference is the stronger one.

    Returns:
        tuple: float32 [N, C*H*W] (C = 1 for copied gray) and int64 [N].
    """
    images, labels = [], []
    for batch in dataloader:
        images.append(stacked(batch)['inputs'].float())
        labels += [int(s.gt_label[0]) for s in batch['data_samples']]
    images = torch.cat(images)  # [N, C, H, W]
    if (images == images[:, :1]).all():
        images = images[:, :1]
    return images.flatten(1), torch.tensor(labels)


def evaluate_pixels(train_loader, test_loader, readouts=('linear', 'knn'),
                    k=20, temperature=0.07, probe_epochs=90, seed=0,
                    probe_seeds=None, progress=None):
    """The readouts of the pixels: what ``evaluate_frozen`` gives for an
    encoder, with the pixels as its features.

    Args:
        train_loader, test_loader: the labelled images, as for
            ``evaluate_frozen`` (``labelled_loaders``).
        readouts (tuple[str]): of :func:`pixel_readouts`.
        k, temperature, probe_epochs, seed, probe_seeds, progress: see
            ``evaluate_frozen``.

    Returns:
        dict: as ``evaluate_frozen``'s (``feature_dim``: pixels an image).

    Raises:
        ValueError: a readout that needs tokens or layers of an encoder.
    """
    check_readouts(readouts)
    if probe_seeds is not None:  # before the images are read
        check_probe_seeds(probe_seeds)
    others = [r for r in readouts if r not in pixel_readouts()]
    if others:
        raise ValueError(f'readouts: {others} read an encoder\'s tokens or '
                         f'layers, which pixels do not have; allowed: '
                         f'{list(pixel_readouts())}')
    features = {'pooled': tuple(pixel_features(loader)
                                for loader in (train_loader, test_loader))}
    return read_out_over_seeds(features, readouts, seed, probe_seeds,
                               progress, k=k, temperature=temperature,
                               probe_epochs=probe_epochs)
