"""The features of a frozen encoder that the readouts read."""
import torch

from ..precision import resolve_precision
from .progress import progress_reporter, stage
from .readout_registry import READOUTS, check_readouts

__all__ = ['FEATURE_KINDS', 'extract_feature_kinds', 'extract_features',
           'extract_layer_features', 'extract_readout_features', 'stacked']


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


# What a readout may read (``Readout.features``); all of them come from one
# forward pass of the encoder a batch (:func:`extract_feature_kinds`).
FEATURE_KINDS = ('pooled', 'tokens', 'layers')


def _check_kinds(kinds):
    unknown = [kind for kind in kinds if kind not in FEATURE_KINDS]
    if unknown or not kinds:
        raise ValueError(f'kinds must be some of {list(FEATURE_KINDS)}, '
                         f'got {list(kinds)}')


def _last(out):
    """The last output of a backbone or ``extract_feat`` (a tuple of
    stages' outputs, or one tensor)."""
    return out[-1] if isinstance(out, (tuple, list)) else out


@torch.no_grad()
def extract_feature_kinds(model, dataloader, kinds, tick=None):
    """Runs the model's encoder once over a labelled data loader and keeps
    each of ``kinds`` of feature (``FEATURE_KINDS``) from that one pass.

    The tokens and each layer's output are read by forward hooks while
    ``extract_feat`` runs, so a model whose ``extract_feat`` pools
    (RandSAC, a classifier with a neck) is not run again for its tokens:
    every kind is what a pass of its own would give, bit for bit.

    Args:
        model: a self-supervised algorithm (``RandSAC``, mmpretrain's
            ``MAE``, ...) or classifier: its ``data_preprocessor`` normalises
            the batch, its ``extract_feat`` gives the encoder output, and
            its ``backbone`` (a ViT: ``layers``, ``ln1``) gives the tokens.
        dataloader: yields mmpretrain batches whose data samples carry
            ``gt_label``, collated by ``default_collate`` or mmengine's
            default ``pseudo_collate`` (see :func:`stacked`).
        kinds (Iterable[str]): any of ``FEATURE_KINDS``: 'pooled',
            ``extract_feat``'s output averaged over positions [N, C];
            'tokens', the backbone's last feature map [N, C, h, w] as tokens
            [N, h * w, C] (raster order); 'layers', every encoder layer's
            patch tokens, final-normed (the features RandSAC's decoder
            reads) and averaged [N, num_layers, C].
        tick (Callable[[], None] | None): called after each batch
            (progress).

    Returns:
        dict: kind -> (features float32, labels int64 [N]), on the CPU.

    Raises:
        ValueError: an unknown kind, or 'tokens' of a backbone that gives
            no feature map [B, C, h, w].
    """
    kinds = list(kinds)
    _check_kinds(kinds)
    backbone = model.backbone
    last_map, layer_outputs, hooks = [], [], []
    if 'tokens' in kinds:
        hooks.append(backbone.register_forward_hook(
            lambda module, args, out: last_map.append(_last(out))))
    if 'layers' in kinds:
        hooks += [layer.register_forward_hook(
            lambda module, args, out: layer_outputs.append(out))
            for layer in backbone.layers]
    # The patch tokens only: a class token (``num_extra_tokens``) is left
    # out, as in the last-layer feature.
    extra = getattr(backbone, 'num_extra_tokens', 0)
    features = {kind: [] for kind in kinds}
    labels = []
    try:
        for images, batch_labels in _batches(model, dataloader, tick):
            last_map.clear()
            layer_outputs.clear()
            out = _last(model.extract_feat(images))
            if 'pooled' in kinds:
                features['pooled'].append(pooled(out).float().cpu())
            if 'tokens' in kinds:
                if last_map[-1].dim() != 4:
                    raise ValueError(
                        'tokens need an encoder that gives a feature map '
                        f'[B, C, h, w], got {tuple(last_map[-1].shape)}')
                features['tokens'].append(
                    last_map[-1].flatten(2).transpose(1, 2).float().cpu())
            if 'layers' in kinds:
                features['layers'].append(torch.stack(
                    [backbone.ln1(x[:, extra:]).mean(1)
                     for x in layer_outputs], 1).float().cpu())
            labels.extend(batch_labels)
    finally:
        for hook in hooks:
            hook.remove()
    labels = torch.tensor(labels, dtype=torch.long)
    return {kind: (torch.cat(features[kind]), labels) for kind in kinds}


def extract_features(model, dataloader, tokens=False, tick=None):
    """The averaged last-layer tokens [N, C] (``tokens``: the tokens
    themselves, [N, L, C]) and labels [N] of a loader; see
    :func:`extract_feature_kinds`."""
    kind = 'tokens' if tokens else 'pooled'
    return extract_feature_kinds(model, dataloader, [kind], tick)[kind]


def extract_layer_features(model, dataloader, tick=None):
    """Every encoder layer's averaged, final-normed tokens [N, num_layers,
    C] and labels [N] of a loader; see :func:`extract_feature_kinds`."""
    return extract_feature_kinds(model, dataloader, ['layers'],
                                 tick)['layers']


def feature_precision(model, precision):
    """The model's device type and the :class:`~randsac_mm.precision.
    Precision` of a feature pass of ``model`` asking for ``precision``."""
    first = next(model.parameters(), None)
    device_type = first.device.type if first is not None else 'cpu'
    return device_type, resolve_precision(precision, device_type)


def extract_readout_features(model, train_loader, test_loader,
                             readouts=('linear', 'knn'), progress=None,
                             precision='auto'):
    """The features ``readouts`` read, from one pass of the encoder over
    each loader (:func:`extract_feature_kinds`).

    Args:
        model: see :func:`extract_feature_kinds`.
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
    kinds = [kind for kind in FEATURE_KINDS if kind in needed]
    what = ' and '.join(filter(None, [', '.join(kinds[:-1]), kinds[-1]]))
    per_loader = []
    with decided.autocast(device_type):
        for name, loader in (('training', train_loader),
                             ('test', test_loader)):
            batches = len(loader) if report is not None else 0
            tick = stage(
                report, f'features of the {len(loader.dataset)} {name} '
                f'images ({what}; {batches} batch{"es" if batches > 1 else ""}'
                f', {decided.name})', batches)
            per_loader.append(
                extract_feature_kinds(model, loader, kinds, tick))
    train, test = per_loader
    return {kind: (train[kind], test[kind]) for kind in kinds}
