"""Reusable evaluations of any checkpoint's frozen encoder: the paper's
linear probe, a k-NN, an attentive probe and a per-layer linear probe."""
from .attentive_probe import AttentivePoolingHead, attentive_probe_accuracy
from .frozen_features import (
                              ACCURACY_READOUTS,
                              READOUTS,
                              best_layer,
                              evaluate_frozen,
                              extract_features,
                              extract_layer_features,
                              extract_readout_features,
                              read_out,
)
from .knn import knn_accuracy
from .linear_probe import linear_probe_accuracy

__all__ = ['ACCURACY_READOUTS', 'READOUTS', 'AttentivePoolingHead',
           'attentive_probe_accuracy', 'best_layer', 'evaluate_frozen',
           'extract_features', 'extract_layer_features',
           'extract_readout_features', 'knn_accuracy',
           'linear_probe_accuracy', 'read_out']
