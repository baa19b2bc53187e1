"""Reusable evaluations of any checkpoint's frozen encoder: the paper's
linear probe, a k-NN, an attentive probe and a per-layer linear probe.

``evaluate_frozen`` is the entry point (the demo, the study and
``tools/analysis/eval_frozen.py`` call it); ``labelled_loaders`` gives it
the labelled data of a data config.
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
from .readouts import (
                       ACCURACY_READOUTS,
                       READOUTS,
                       best_layer,
                       read_out,
                       readout_title,
)

__all__ = ['ACCURACY_READOUTS', 'READOUTS', 'AttentivePoolingHead',
           'attentive_probe_accuracy', 'best_layer', 'check_probe_seeds',
           'evaluate_frozen', 'extract_features', 'extract_layer_features',
           'extract_readout_features', 'knn_accuracy', 'labelled_loaders',
           'linear_probe_accuracy', 'mean_over_probe_seeds', 'read_out',
           'readout_title']
