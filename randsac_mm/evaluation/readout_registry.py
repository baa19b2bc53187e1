"""A readout of a frozen encoder: what it reads, its name in tables, and how
it reads. Each readout is one registered class in one file; a new one is
added from any module imported before the evaluation runs::

    @register_readout('nearest_centroid')
    class NearestCentroid(Readout):
        title = 'nearest centroid'
        features = 'pooled'

        def read(self, train, test, settings, report=None):
            ...
            return {'nearest_centroid': accuracy}

``evaluate_frozen`` extracts the features the readouts asked for once and
runs them (``read_out``); the tools take their choices from
``READOUTS``.
"""
import statistics

from ..extension_registry import Registry

__all__ = ['READOUTS', 'Readout', 'accuracy_readouts', 'check_readouts',
           'readout_title', 'register_readout']

# readout name -> Readout subclass.
READOUTS = Registry('readout')


def register_readout(name):
    """Class decorator: makes a :class:`Readout` subclass the readout
    ``name`` (``evaluate_frozen(readouts=(name, ...))``, ``eval_frozen.py
    --probe name``)."""
    return lambda cls: READOUTS.register_class(name, cls, Readout)


class Readout:
    """One way to read a frozen encoder's features.

    Attributes:
        name (str): its name (set by the decorator).
        title (str): how tables and logs name it; ``{k}`` is the k-NN's k.
        features (str): what it reads, a key of ``frozen_features.
            FEATURE_KINDS``: 'pooled' [N, C] (the averaged last-layer
            tokens), 'tokens' [N, L, C] (the last layer's tokens) or
            'layers' [N, num_layers, C] (each layer's averaged tokens).
        accuracy (bool): it gives one top-1 accuracy (%) under its name,
            which tables, margins and the probe-seed spread report.
        result_key (str | None): the key of its result that shows it was
            read (None: its name).
    """
    name = None
    result_key = None
    title = None
    features = 'pooled'
    accuracy = True

    def read(self, train, test, settings, report=None):
        """Reads ``features`` out.

        Args:
            train, test (tuple[torch.Tensor, torch.Tensor]): features and
                int64 labels [N] of the training and test images.
            settings (dict): ``k``, ``temperature``, ``probe_epochs``,
                ``warmup_epochs`` and ``seed`` (see ``evaluate_frozen``).
            report (Callable | None): ``report(title, total) -> tick``
                for a progress stage (``progress.progress_reporter``).

        Returns:
            dict: its results; an accuracy readout's under its name.
        """
        raise NotImplementedError

    @classmethod
    def read_in(cls, result):
        """Whether ``result`` (of ``read_out``) holds this readout's."""
        return (cls.result_key or cls.name) in result

    def mean_over_seeds(self, results):
        """Its results averaged over probe seeds (one ``read`` result per
        seed): by default the accuracy under its name.

        Returns:
            dict: the means, to update the first seed's result with.
        """
        return {self.name: statistics.mean(r[self.name] for r in results)}


def check_readouts(readouts):
    """Raises ValueError, naming ``readouts``, for a name not in
    ``READOUTS``."""
    unknown = sorted(set(readouts) - set(READOUTS))
    if unknown:
        raise ValueError(f'readouts: unknown {unknown}; allowed: '
                         f'{tuple(READOUTS)}')


def readout_title(readout, k=20):
    """How tables and logs name a readout: 'linear probe', 'k-NN (k=20)',
    'attentive probe', 'linear probe per layer'."""
    return READOUTS.get(readout).title.format(k=k)


def accuracy_readouts():
    """The names of the registered readouts that give one accuracy, in
    registration order."""
    return tuple(name for name, cls in READOUTS.items() if cls.accuracy)
