"""The features of a frozen encoder that the readouts read."""
import torch

from ..precision import resolve_precision
from .progress import progress_reporter, stage
from .readout_registry import READOUTS, check_readouts

__all__ = ['FEATURE_KINDS', 'extract_features', 'extract_layer_features',
           'extract_readout_features', 'stacked']


def pooled(features):
    """The probe feature of an encoder output: [B, C] as it is; a feature
    map [B, C, h, w] or tokens [B, N, C] averaged over positions (the
    paper's averaged tokens; RandSAC's ``extract_feat`` already pools)."""
    if features.dim() == 4:
        return features.flatten(2).mean(2)
    if features.dim() == 3:
        return features.mean(1)
    return features


def stacked(batch):
    """A batch as ``default_collate`` gives it, from either collation.

    mmengine's default ``collate_fn``, ``pseudo_collate`` (what a data
    config without ``collate_fn`` gets), gives the images as a list, one
    [C, H, W] tensor each (or one list of views each); ``default_collate``
    stacks them into [B, C, H, W] (a list of such tensors, one per view).
    The images are stacked here as ``default_collate`` stacks them, so
    both give the same features.

    Raises:
        ValueError: the images of the batch differ in size.
    """
    inputs = batch['inputs']
    if not isinstance(inputs, (list, tuple)) or not inputs:
        return batch
    first = inputs[0]
    if isinstance(first, (list, tuple)):  # views per image: the first
        images = [views[0] for views in inputs]
    elif isinstance(first, torch.Tensor) and first.dim() == 3:
        images = list(inputs)
    else:  # default_collate of views: a list of [B, C, H, W]
        return batch
    sizes = sorted({tuple(image.shape) for image in images})
    if len(sizes) > 1:
        raise ValueError(
            f'the images of a batch differ in size ({sizes[:4]}): the data '
            "config's test pipeline must bring them to one size (e.g. "
            'ResizeEdge and CenterCrop)')
    return dict(batch, inputs=torch.stack(images))


def _batches(model, dataloader, tick=None):
    """(preprocessed images, labels) of each batch, model in eval mode;
    ``tick()`` after each batch."""
    model.eval()
    for batch in dataloader:
        # Read where the loader made them: after the preprocessor's cast,
        # each label read back from a GPU would wait for it.
        labels = [int(s.gt_label[0]) for s in batch['data_samples']]
        data = model.data_preprocessor(stacked(batch), False)
        inputs = data['inputs']
        images = inputs[0] if isinstance(inputs, list) else inputs
        yield images, labels
        if tick is not None:
            tick()


@torch.no_grad()
def extract_features(model, dataloader, tokens=False, tick=None):
    """Runs the model's encoder over a labelled data loader.

    Args:
        model: a self-supervised algorithm (``RandSAC``, mmpretrain's
            ``MAE``, ...) or classifier: its ``data_preprocessor`` normalises
            the batch and its ``extract_feat`` gives the encoder output.
        dataloader: yields mmpretrain batches whose data samples carry
            ``gt_label``, collated by ``default_collate`` or mmengine's
            default ``pseudo_collate`` (see :func:`stacked`).
        tokens (bool): keep the last layer's tokens [N, L, C] (a feature
            map's positions, raster order) instead of their average [N, C].
        tick (Callable[[], None] | None): called after each batch
            (progress).

    Returns:
        tuple: features float32 and labels int64 [N], on the CPU.
    """
    features, labels = [], []
    for images, batch_labels in _batches(model, dataloader, tick):
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
def extract_layer_features(model, dataloader, tick=None):
    """Every encoder layer's tokens, final-normed (the features RandSAC's
    decoder reads) and averaged: [N, num_layers, C]; ``tick()`` after each
    batch.

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
        for images, batch_labels in _batches(model, dataloader, tick):
            outputs.clear()
            model.extract_feat(images)
            per_layer = [norm(x[:, extra:]).mean(1) for x in outputs]
            features.append(torch.stack(per_layer, 1).float().cpu())
            labels.extend(batch_labels)
    finally:
        for hook in hooks:
            hook.remove()
    return torch.cat(features), torch.tensor(labels, dtype=torch.long)


# What a readout may read (``Readout.features``): how progress names a pass
# over a loader, and the extraction ``fn(model, loader, tick)``.
FEATURE_KINDS = {
    'pooled': ('features', lambda model, loader, tick: extract_features(
        model, loader, tick=tick)),
    'tokens': ('last-layer tokens', lambda model, loader, tick:
               extract_features(model, loader, tokens=True, tick=tick)),
    'layers': ("every layer's features", extract_layer_features),
}


def feature_precision(model, precision):
    """The model's device type and the :class:`~randsac_mm.precision.
    Precision` of a feature pass of ``model`` asking for ``precision``."""
    first = next(model.parameters(), None)
    device_type = first.device.type if first is not None else 'cpu'
    return device_type, resolve_precision(precision, device_type)


def extract_readout_features(model, train_loader, test_loader,
                             readouts=('linear', 'knn'), progress=None,
                             precision='auto'):
    """The features ``readouts`` read, extracted once.

    Args:
        model: see :func:`extract_features`.
        train_loader, test_loader: see :func:`evaluate_frozen`.
        readouts (tuple[str]): any of ``READOUTS``.
        progress: a stage per pass over a loader, ticked per batch; see
            :func:`~randsac_mm.evaluation.progress.progress_reporter`.
        precision (str): the encoder's precision (features are float32
            either way): 'auto' (bf16 autocast on a GPU and on a CPU with
            bf16 instructions), 'bfloat16' or 'float32'; see
            :func:`randsac_mm.precision.resolve_precision`.

    Returns:
        dict: ``(train, test)`` pairs of (features, labels) tuples, under
        each ``FEATURE_KINDS`` key the readouts read: ``pooled`` ([N, C],
        'linear' and 'knn'), ``tokens`` ([N, L, C], 'attentive'),
        ``layers`` ([N, num_layers, C]).
    """
    check_readouts(readouts)
    device_type, decided = feature_precision(model, precision)
    report = progress_reporter(progress)
    # Said where the progress goes (a tool's stdout holds its results
    # alone), else in the log.
    if report is None:
        decided.log(device_type, prefix='features: ')
    elif decided.warning:
        decided.log(device_type)
    needed = {READOUTS.get(r).features for r in readouts}

    def passes(what, extract):
        """``extract(model, loader, tick)`` of the training and test
        loaders."""
        out = []
        for name, loader in (('training', train_loader),
                             ('test', test_loader)):
            batches = len(loader) if report is not None else 0
            tick = stage(
                report, f'{what} of the {len(loader.dataset)} {name} images '
                f'({batches} batch{"es" if batches > 1 else ""}, '
                f'{decided.name})', batches)
            out.append(extract(model, loader, tick))
        return tuple(out)

    with decided.autocast(device_type):
        return {kind: passes(*FEATURE_KINDS[kind])
                for kind in FEATURE_KINDS if kind in needed}
