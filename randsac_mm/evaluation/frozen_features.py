"""The features of a frozen encoder that the readouts read."""
import torch

from .readouts import READOUTS

__all__ = ['extract_features', 'extract_layer_features',
           'extract_readout_features']


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
