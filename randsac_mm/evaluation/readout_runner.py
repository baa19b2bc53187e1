"""Running the readouts of ``READOUTS`` on features extracted once."""
# isort: off
# The built-in readouts, registered in the order tables list them (the
# package imports this module first).
from . import linear_probe, knn, attentive_probe, layer_probe  # noqa: F401
# isort: on
from .progress import progress_reporter
from .readout_registry import READOUTS, check_readouts

__all__ = ['read_out', 'readout_settings']


def readout_settings(k=20, temperature=0.07, probe_epochs=90, seed=0):
    """What a readout's ``read`` takes (see ``evaluate_frozen``); the
    probes warm up for a ninth of their epochs, at most 10."""
    return dict(k=k, temperature=temperature, probe_epochs=probe_epochs,
                warmup_epochs=min(10, probe_epochs // 9), seed=seed)


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
    check_readouts(readouts)
    report = progress_reporter(progress)
    settings = readout_settings(k, temperature, probe_epochs, seed)
    result = {}
    for name in [r for r in READOUTS if r in readouts]:  # table order
        readout = READOUTS.get(name)()
        train, test = features[readout.features]
        result['feature_dim'] = int(train[0].shape[-1])
        result.update(readout.read(train, test, settings, report))
    return result
