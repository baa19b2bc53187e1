"""Frozen-encoder evaluation: the one entry point that the demo, the
study and ``tools/analysis/eval_frozen.py`` call."""
from .frozen_features import extract_readout_features
from .probe_seeds import check_probe_seeds, mean_over_probe_seeds
from .progress import progress_reporter, with_prefix
from .readout_runner import read_out

__all__ = ['evaluate_frozen', 'read_out_over_seeds']


def evaluate_frozen(model, train_loader, test_loader, k=20, temperature=0.07,
                    probe_epochs=90, seed=0, readouts=('linear', 'knn'),
                    probe_seeds=None, progress=None, probe_device='cpu',
                    precision='auto'):
    """Readouts of a frozen encoder: its features are extracted once
    (:func:`extract_readout_features`), then read out (:func:`read_out`)
    once, or once per probe seed.

    Args:
        model: an algorithm or classifier, weights loaded (build one from a
            config and a checkpoint with ``randsac_mm.apis.build_model``);
            see :func:`extract_feature_kinds`.
        train_loader: the labelled training images, without augmentation
            (a test pipeline): the probes' training features and the k-NN's
            neighbours (``labelled_loaders`` gives both loaders of a data
            config).
        test_loader: the labelled test images.
        k, temperature: see :func:`knn_accuracy`.
        probe_epochs (int): the linear and attentive probes' epochs.
        seed (int): the probes' seed (initialisation and batch order).
        readouts (tuple[str]): any of ``READOUTS``.
        probe_seeds (list[int] | None): train the probes once per seed on
            the same features and average (:func:`mean_over_probe_seeds`):
            how much a probe's own seed moves its accuracy. None: once,
            with ``seed``.
        progress: None or False (quiet), True (progress bars on stderr:
            each pass over a loader per batch, each probe per epoch, the
            k-NN per chunk), or a callable ``(title, total) -> tick``; see
            :func:`~randsac_mm.evaluation.progress.progress_reporter`.
        probe_device (str | torch.device): where the probes train and the
            k-NN searches (the features move there): 'cpu', or a GPU for
            tens of thousands of images (the batch order and the probes'
            initialisation are drawn on the CPU either way).
        precision (str): the encoder's in the feature passes ('auto',
            'bfloat16' or 'float32'); see :func:`extract_readout_features`.

    Returns:
        dict: top-1 accuracies (%) ``linear``, ``knn``, ``attentive``, and
        for 'layers' ``layer_linear`` (one per encoder layer) and
        ``best_layer`` (1-based); ``feature_dim``; with ``probe_seeds``,
        their means and what :func:`mean_over_probe_seeds` adds.
    """
    if probe_seeds is not None:
        check_probe_seeds(probe_seeds)
    report = progress_reporter(progress)
    features = _to_device(
        extract_readout_features(model, train_loader, test_loader, readouts,
                                 progress=report, precision=precision),
        probe_device)
    return read_out_over_seeds(features, readouts, seed, probe_seeds, report,
                               k=k, temperature=temperature,
                               probe_epochs=probe_epochs)


def read_out_over_seeds(features, readouts, seed, probe_seeds, progress,
                        **options):
    """:func:`read_out` of ``features`` once with ``seed``, or once per
    probe seed and averaged (:func:`mean_over_probe_seeds`).

    Args:
        options: ``k``, ``temperature`` and ``probe_epochs`` of
            :func:`read_out`.
    """
    if probe_seeds is not None:
        check_probe_seeds(probe_seeds)
    report = progress_reporter(progress)
    if probe_seeds is None:
        return read_out(features, readouts, seed=seed, progress=report,
                        **options)
    return mean_over_probe_seeds(
        [read_out(features, readouts, seed=s, progress=with_prefix(
            report, f'probe seed {s}: '), **options)
         for s in probe_seeds], probe_seeds)


def _to_device(features, device):
    """``extract_readout_features``' dict with every tensor on ``device``."""
    def move(item):
        if isinstance(item, tuple):
            return tuple(move(i) for i in item)
        return item.to(device)
    return {kind: move(pairs) for kind, pairs in features.items()}
