"""Lets ``torch.load(weights_only=True)`` read mmengine training checkpoints.

torch >= 2.6 loads with ``weights_only=True`` by default, and mmengine 0.10.7
calls ``torch.load`` without saying otherwise. Its checkpoints hold, besides
tensors, the message hub: ``HistoryBuffer`` objects (numpy arrays inside, and
a dict of statistics functions pickled as ``getattr(HistoryBuffer, 'min')``)
and numpy scalars. So ``--resume`` fails with "Weights only load failed".

We allowlist exactly those globals. ``builtins.getattr`` is not allowed as
such (it would reach anything): the name is bound to
:func:`history_buffer_getattr`, which resolves only HistoryBuffer's own
statistics methods. Weights-only loading stays on for everything else.
"""
import pickle

import numpy as np
import torch
from mmengine.logging import HistoryBuffer

__all__ = ['allow_mmengine_checkpoint_globals', 'history_buffer_getattr',
           'MMENGINE_CHECKPOINT_GLOBALS']


# HistoryBuffer's statistics methods, which pickle writes as
# getattr(HistoryBuffer, name) (a custom one, registered with
# HistoryBuffer.register_statistics, is a function of its own module and
# pickled under its own name, never through getattr).
DEFAULT_STATISTICS = ('min', 'max', 'current', 'mean')


def history_buffer_getattr(obj, name):
    """``getattr`` restricted to ``HistoryBuffer``'s statistics methods.

    Raises:
        pickle.UnpicklingError: for any other object or attribute.
    """
    if obj is HistoryBuffer and name in DEFAULT_STATISTICS:
        return getattr(HistoryBuffer, name)
    allowed = sorted(DEFAULT_STATISTICS)
    raise pickle.UnpicklingError(
        f'weights_only load: the checkpoint asks for getattr({obj!r}, '
        f'{name!r}); randsac_mm only allows getattr(HistoryBuffer, m) for '
        f'its statistics methods {allowed}. Load it with weights_only=False '
        'only if you trust its source.')


# The functions numpy pickles arrays and scalars with, as the pickle
# protocol gives them (``__reduce__``), not through numpy's private modules.
_RECONSTRUCT = np.zeros(1).__reduce__()[0]
_SCALAR = np.float64(0).__reduce__()[0]


def _pickled_names(function):
    """The names pickles give ``function``: numpy >= 2 writes
    ``numpy._core...``, numpy 1.x wrote ``numpy.core...`` (older
    checkpoints)."""
    name = f'{function.__module__}.{function.__name__}'
    return {name, name.replace('numpy._core.', 'numpy.core.')}


MMENGINE_CHECKPOINT_GLOBALS = [
    HistoryBuffer,
    (history_buffer_getattr, 'builtins.getattr'),
    np.ndarray,
    np.dtype,
] + [(function, name) for function in (_RECONSTRUCT, _SCALAR)
     for name in sorted(_pickled_names(function))] + [
    type(np.dtype(name)) for name in
    ('float64', 'float32', 'float16', 'int64', 'int32', 'bool')]


def allow_mmengine_checkpoint_globals():
    """Adds :data:`MMENGINE_CHECKPOINT_GLOBALS` to torch's allowlist."""
    torch.serialization.add_safe_globals(MMENGINE_CHECKPOINT_GLOBALS)
