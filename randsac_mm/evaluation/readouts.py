"""The readouts of a frozen encoder's features: what each is, its name in
tables, and running them."""
from .attentive_probe import attentive_probe_accuracy
from .knn import knn_accuracy
from .linear_probe import linear_probe_accuracy
from .progress import progress_reporter

__all__ = ['ACCURACY_READOUTS', 'READOUTS', 'best_layer', 'read_out',
           'readout_title']

# What evaluate_frozen can read out of a frozen encoder:
# - 'linear': the paper's linear probe on the averaged last-layer tokens;
# - 'knn': weighted cosine k-NN on the same feature;
# - 'attentive': an attentive probe on the last layer's tokens;
# - 'layers': the linear probe on each layer's averaged (final-normed)
#   tokens, and which layer is best.
# The first three each give one top-1 accuracy, under their own name.
ACCURACY_READOUTS = ('linear', 'knn', 'attentive')
READOUTS = ACCURACY_READOUTS + ('layers', )
KNN_CHUNK = 1024  # test features the k-NN compares at once


def readout_title(readout, k=20):
    """How tables and logs name a readout: 'linear probe', 'k-NN (k=20)',
    'attentive probe', 'linear probe per layer'."""
    titles = dict(linear='linear probe', knn=f'k-NN (k={k})',
                  attentive='attentive probe',
                  layers='linear probe per layer')
    if readout not in titles:
        raise ValueError(f'readout: unknown {readout!r}; allowed: {READOUTS}')
    return titles[readout]


def read_out(features, readouts=('linear', 'knn'), k=20, temperature=0.07,
             probe_epochs=90, seed=0, progress=None):
    """The readouts of :func:`extract_readout_features`' features.

    Args:
        features (dict): from :func:`extract_readout_features` with these
            ``readouts``.
        readouts, k, temperature, probe_epochs, seed: see
            :func:`~randsac_mm.evaluation.evaluate_frozen`.
        progress: a stage per readout, ticked per probe epoch (per k-NN
            chunk); see :func:`~randsac_mm.evaluation.progress.
            progress_reporter`.

    Returns:
        dict: see :func:`~randsac_mm.evaluation.evaluate_frozen`.
    """
    report = progress_reporter(progress)

    def tick(title, total):
        return None if report is None else report(title, total)

    warmup = min(10, probe_epochs // 9)
    probe = dict(epochs=probe_epochs, warmup_epochs=warmup, seed=seed)
    result = {}
    if 'linear' in readouts or 'knn' in readouts:
        train, test = features['pooled']
        result['feature_dim'] = int(train[0].shape[1])
        if 'linear' in readouts:
            result['linear'] = linear_probe_accuracy(
                *train, *test, **probe, tick=tick(
                    f'linear probe: {epochs(probe_epochs)} on '
                    f'{len(train[0])} features', probe_epochs))
        if 'knn' in readouts:
            chunks = -(-len(test[0]) // KNN_CHUNK)
            result['knn'] = knn_accuracy(
                *train, *test, k=k, temperature=temperature,
                chunk=KNN_CHUNK, tick=tick(
                    f'{readout_title("knn", k)}: {len(test[0])} test '
                    'images', chunks))
    if 'attentive' in readouts:
        train, test = features['tokens']
        result['feature_dim'] = int(train[0].shape[-1])
        result['attentive'] = attentive_probe_accuracy(
            *train, *test, **probe, tick=tick(
                f'attentive probe: {epochs(probe_epochs)} on '
                f'{len(train[0])} x {train[0].shape[1]} tokens',
                probe_epochs))
    if 'layers' in readouts:
        train, test = features['layers']
        layers = train[0].shape[1]
        result['feature_dim'] = int(train[0].shape[-1])
        every_epoch = tick(f'linear probes of the {layers} layers: {layers} '
                           f'x {epochs(probe_epochs)}', layers * probe_epochs)
        result['layer_linear'] = [
            linear_probe_accuracy(train[0][:, i], train[1], test[0][:, i],
                                  test[1], **probe, tick=every_epoch)
            for i in range(layers)]
        result['best_layer'] = best_layer(result['layer_linear'])
    return result


def epochs(count):
    return f'{count} epoch{"s" if count != 1 else ""}'


def best_layer(layer_accuracies):
    """The 1-based index of the layer whose probe reads out best."""
    return max(range(len(layer_accuracies)),
               key=layer_accuracies.__getitem__) + 1
