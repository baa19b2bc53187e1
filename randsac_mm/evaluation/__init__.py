"""Reusable evaluations of any checkpoint's frozen encoder."""
from .frozen_features import evaluate_frozen, extract_features
from .knn import knn_accuracy
from .linear_probe import linear_probe_accuracy

__all__ = ['evaluate_frozen', 'extract_features', 'knn_accuracy',
           'linear_probe_accuracy']
