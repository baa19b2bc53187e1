"""The batch data path for small image sets: a batch's random crops, flips
and layouts drawn at once, each keyed on (run seed, epoch, sample index),
and the crop applied where the batch lives.

In progress (issue "The paper's CIFAR-scale rows in minutes on one GPU"):
the data set (``InMemoryBatchImages``) and its parts, each tested against
the per-sample pipeline; the configs that use them come next.
"""
from .crop_params import UNIFORMS_PER_ATTEMPT, random_resized_crop_boxes
from .crop_resize import crop_resize_flip
from .in_memory import InMemoryBatchImages
from .keyed_random import keyed_draws, keyed_uniform, sample_keys

__all__ = ['InMemoryBatchImages', 'UNIFORMS_PER_ATTEMPT', 'crop_resize_flip',
           'keyed_draws', 'keyed_uniform', 'random_resized_crop_boxes',
           'sample_keys']
