"""Reusable evaluations of any checkpoint's frozen encoder: the paper's
linear probe, a k-NN, an attentive probe and a per-layer linear probe, each
a registered readout (``READOUTS``; ``readout_registry.py`` says how to
add one).

``evaluate_frozen`` is the entry point (the demo, the study and
``tools/analysis/eval_frozen.py`` call it), and ``evaluate_pixels`` the
raw-pixel reference beside it; ``labelled_loaders`` gives it
the labelled data of a data config, ``load_weights`` a checkpoint into
its config's model, and ``progress`` shows the long steps
(``ProgressBars``) and keeps mmengine's per-parameter lines off the
console (``quiet_mmengine_info``).
"""
# isort: off
# First: registers the built-in readouts in the order tables list them.
from .readout_runner import read_out, readout_settings
# isort: on
from .attentive_probe import AttentivePoolingHead, attentive_probe_accuracy
from .frozen_eval import evaluate_frozen
from .frozen_features import (
                              extract_feature_kinds,
                              extract_features,
                              extract_layer_features,
                              extract_readout_features,
)
from .knn import knn_accuracy
from .labelled_data import labelled_loaders
from .layer_probe import best_layer
from .linear_probe import linear_probe_accuracy
from .probe_seeds import check_probe_seeds, mean_over_probe_seeds
from .progress import ProgressBars, quiet_mmengine_info
from .raw_pixels import evaluate_pixels, pixel_features, pixel_readouts
from .readout_registry import (
                              READOUTS,
                              Readout,
                              accuracy_readouts,
                              readout_title,
                              register_readout,
)
from .weights import load_weights

__all__ = ['READOUTS', 'AttentivePoolingHead', 'ProgressBars', 'Readout',
           'accuracy_readouts', 'attentive_probe_accuracy', 'best_layer',
           'check_probe_seeds', 'evaluate_frozen', 'evaluate_pixels',
           'extract_feature_kinds',
           'extract_features', 'extract_layer_features',
           'extract_readout_features',
           'knn_accuracy', 'labelled_loaders', 'linear_probe_accuracy',
           'load_weights', 'mean_over_probe_seeds', 'pixel_features',
           'pixel_readouts', 'quiet_mmengine_info',
           'read_out', 'readout_settings', 'readout_title',
           'register_readout']
