"""Reusable evaluations of any checkpoint's frozen encoder: the paper's
linear probe, a k-NN, an attentive probe and a per-layer linear probe.

``evaluate_frozen`` is the entry point (the demo, the study and
``tools/analysis/eval_frozen.py`` call it); ``labelled_loaders`` gives it
the labelled data of a data config, ``load_weights`` a checkpoint into
its config's model, and ``progress`` shows the long steps
(``ProgressBars``) and keeps mmengine's per-parameter lines off the
console (``quiet_mmengine_info``).
"""
from .attentive_probe import AttentivePoolingHead, attentive_probe_accuracy
from .frozen_eval import evaluate_frozen
from .frozen_features import (
                              extract_features,
                              extract_layer_features,
                              extract_readout_features,
)
from .knn import knn_accuracy
from .labelled_data import labelled_loaders
from .linear_probe import linear_probe_accuracy
from .probe_seeds import check_probe_seeds, mean_over_probe_seeds
from .progress import ProgressBars, quiet_mmengine_info
from .readouts import (
                       ACCURACY_READOUTS,
                       READOUTS,
                       best_layer,
                       read_out,
                       readout_title,
)
from .weights import load_weights

__all__ = ['ACCURACY_READOUTS', 'READOUTS', 'AttentivePoolingHead',
           'ProgressBars', 'attentive_probe_accuracy', 'best_layer',
           'check_probe_seeds', 'evaluate_frozen', 'extract_features',
           'extract_layer_features', 'extract_readout_features',
           'knn_accuracy', 'labelled_loaders', 'linear_probe_accuracy',
           'load_weights', 'mean_over_probe_seeds', 'quiet_mmengine_info',
           'read_out', 'readout_title']
