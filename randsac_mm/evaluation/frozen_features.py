"""Features of a frozen encoder, and the readouts run on them."""
import torch

from .attentive_probe import attentive_probe_accuracy
from .knn import knn_accuracy
from .linear_probe import linear_probe_accuracy

__all__ = ['ACCURACY_READOUTS', 'READOUTS', 'best_layer', 'evaluate_frozen',
           'extract_features', 'extract_layer_features',
           'extract_readout_features', 'read_out']

# What evaluate_frozen can read out of a frozen encoder:
# - 'linear': the paper's linear probe on the averaged last-layer tokens;
# - 'knn': weighted cosine k-NN on the same feature;
# - 'attentive': an attentive probe on the last layer's tokens;
# - 'layers': the linear probe on each layer's averaged (final-normed)
#   tokens, and which layer is best.
# The first three each give one top-1 accuracy, under their own name.
ACCURACY_READOUTS = ('linear', 'knn', 'attentive')
READOUTS = ACCURACY_READOUTS + ('layers', )


def pooled(features):
    """The probe feature of an encoder output: [B, C] as it is; a feature
    map [B, C, h, w] or tokens [B, N, C] averaged over positions (the
    paper's averaged tokens; RandSAC's ``extract_feat`` already pools)."""
    if features.dim() == 4:
        return features.flatten(2).mean(2)
    if features.dim() == 3:
        return features.mean(1)
    return features


def _batches(model, dataloader):
    """(preprocessed images, labels) of each batch, model in eval mode."""
    model.eval()
    for batch in dataloader:
        data = model.data_preprocessor(batch, False)
        inputs = data['inputs']
        images = inputs[0] if isinstance(inputs, list) else inputs
        yield images, [int(s.gt_label[0]) for s in data['data_samples']]


@torch.no_grad()
def extract_features(model, dataloader, tokens=False):
    """Runs the model's encoder over a labelled data loader.

    Args:
        model: a self-supervised algorithm (``RandSAC``, mmpretrain's
            ``MAE``, ...) or classifier: its ``data_preprocessor`` normalises
            the batch and its ``extract_feat`` gives the encoder output.
        dataloader: yields mmpretrain batches whose data samples carry
            ``gt_label``.
        tokens (bool): keep the last layer's tokens [N, L, C] (a feature
            map's positions, raster order) instead of their average [N, C].

    Returns:
        tuple: features float32 and labels int64 [N], on the CPU.
    """
    features, labels = [], []
    for images, batch_labels in _batches(model, dataloader):
        out = model.extract_feat(images)
        out = out[-1] if isinstance(out, tuple) else out
        if tokens and out.dim() == 2:  # pooled (RandSAC): the feature map
            out = model.backbone(images)[-1]
        if tokens:
            if out.dim() != 4:
                raise ValueError('tokens=True needs an encoder that gives a '
                                 'feature map [B, C, h, w]')
            out = out.flatten(2).transpose(1, 2)
        else:
            out = pooled(out)
        features.append(out.float().cpu())
        labels.extend(batch_labels)
    return torch.cat(features), torch.tensor(labels, dtype=torch.long)


@torch.no_grad()
def extract_layer_features(model, dataloader):
    """Every encoder layer's tokens, final-normed (the features RandSAC's
    decoder reads) and averaged: [N, num_layers, C].

    The patch tokens only: a class token (``num_extra_tokens``) is left
    out, as in the last-layer feature.
    """
    backbone = model.backbone
    outputs = []
    hooks = [layer.register_forward_hook(
        lambda module, args, out: outputs.append(out))
        for layer in backbone.layers]
    extra = getattr(backbone, 'num_extra_tokens', 0)
    norm = backbone.ln1
    features, labels = [], []
    try:
        for images, batch_labels in _batches(model, dataloader):
            outputs.clear()
            model.extract_feat(images)
            per_layer = [norm(x[:, extra:]).mean(1) for x in outputs]
            features.append(torch.stack(per_layer, 1).float().cpu())
            labels.extend(batch_labels)
    finally:
        for hook in hooks:
            hook.remove()
    return torch.cat(features), torch.tensor(labels, dtype=torch.long)


def extract_readout_features(model, train_loader, test_loader,
                             readouts=('linear', 'knn')):
    """The features ``readouts`` read, extracted once.

    Args:
        model: see :func:`extract_features`.
        train_loader, test_loader: see :func:`evaluate_frozen`.
        readouts (tuple[str]): any of ``READOUTS``.

    Returns:
        dict: ``(train, test)`` pairs of (features, labels) tuples, under
        ``pooled`` ([N, C], for 'linear' and 'knn'), ``tokens``
        ([N, L, C], 'attentive') and ``layers`` ([N, num_layers, C]).
    """
    unknown = sorted(set(readouts) - set(READOUTS))
    if unknown:
        raise ValueError(f'readouts: unknown {unknown}; allowed: {READOUTS}')
    loaders = (train_loader, test_loader)
    features = {}
    if 'linear' in readouts or 'knn' in readouts:
        features['pooled'] = tuple(extract_features(model, loader)
                                   for loader in loaders)
    if 'attentive' in readouts:
        features['tokens'] = tuple(
            extract_features(model, loader, tokens=True)
            for loader in loaders)
    if 'layers' in readouts:
        features['layers'] = tuple(extract_layer_features(model, loader)
                                   for loader in loaders)
    return features


def read_out(features, readouts=('linear', 'knn'), k=20, temperature=0.07,
             probe_epochs=90, seed=0):
    """The readouts of :func:`extract_readout_features`' features.

    Args:
        features (dict): from :func:`extract_readout_features` with these
            ``readouts``.
        readouts, k, temperature, probe_epochs, seed: see
            :func:`evaluate_frozen`.

    Returns:
        dict: see :func:`evaluate_frozen`.
    """
    warmup = min(10, probe_epochs // 9)
    probe = dict(epochs=probe_epochs, warmup_epochs=warmup, seed=seed)
    result = {}
    if 'linear' in readouts or 'knn' in readouts:
        train, test = features['pooled']
        result['feature_dim'] = int(train[0].shape[1])
        if 'linear' in readouts:
            result['linear'] = linear_probe_accuracy(*train, *test, **probe)
        if 'knn' in readouts:
            result['knn'] = knn_accuracy(*train, *test, k=k,
                                         temperature=temperature)
    if 'attentive' in readouts:
        train, test = features['tokens']
        result['feature_dim'] = int(train[0].shape[-1])
        result['attentive'] = attentive_probe_accuracy(*train, *test,
                                                       **probe)
    if 'layers' in readouts:
        train, test = features['layers']
        result['feature_dim'] = int(train[0].shape[-1])
        result['layer_linear'] = [
            linear_probe_accuracy(train[0][:, i], train[1], test[0][:, i],
                                  test[1], **probe)
            for i in range(train[0].shape[1])]
        result['best_layer'] = best_layer(result['layer_linear'])
    return result


def best_layer(layer_accuracies):
    """The 1-based index of the layer whose probe reads out best."""
    return max(range(len(layer_accuracies)),
               key=layer_accuracies.__getitem__) + 1


def evaluate_frozen(model, train_loader, test_loader, k=20, temperature=0.07,
                    probe_epochs=90, seed=0, readouts=('linear', 'knn')):
    """Readouts of a frozen encoder: :func:`read_out` of its
    :func:`extract_readout_features`.

    Args:
        model: see :func:`extract_features`.
        train_loader: the labelled training images, without augmentation
            (a test pipeline): the probes' training features and the k-NN's
            neighbours.
        test_loader: the labelled test images.
        k, temperature: see :func:`knn_accuracy`.
        probe_epochs (int): the linear and attentive probes' epochs.
        seed (int): the probes' seed (initialisation and batch order).
        readouts (tuple[str]): any of ``READOUTS``.

    Returns:
        dict: top-1 accuracies (%) ``linear``, ``knn``, ``attentive``, and
        for 'layers' ``layer_linear`` (one per encoder layer) and
        ``best_layer`` (1-based); ``feature_dim``.
    """
    features = extract_readout_features(model, train_loader, test_loader,
                                        readouts)
    return read_out(features, readouts, k=k, temperature=temperature,
                    probe_epochs=probe_epochs, seed=seed)
