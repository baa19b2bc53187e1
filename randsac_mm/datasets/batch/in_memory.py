"""A small image set held as one array, each batch's random crops, flips
and layouts drawn at once, keyed on (run seed, epoch, sample index)."""
import numpy as np
import torch
from mmpretrain.datasets.transforms import RandomResizedCrop
from mmpretrain.registry import DATASETS
from mmpretrain.structures import DataSample

from randsac_mm.segments.batch import draw_token_ranks

from ..shared_seed_epoch import SharedSeedEpoch
from ..transforms import RandSACSegmentGenerator
from .crop_params import UNIFORMS_PER_ATTEMPT, random_resized_crop_boxes
from .crop_resize import check_interpolation
from .keyed_random import keyed_draws, keyed_uniform, sample_keys

__all__ = ['InMemoryBatchImages']

# A sample's keyed streams (keyed_uniform's ``stream``).
CROP_STREAM, FLIP_STREAM, LAYOUT_STREAM = 1, 2, 3


@DATASETS.register_module()
class InMemoryBatchImages(torch.utils.data.Dataset):
    """The images of a small data set as one uint8 array [n, H, W, 3], read
    once; a batch (PyTorch's ``__getitems__``, in the loader's worker) gets
    its crop boxes, flips and segment layouts drawn for all its samples at
    once. The crop itself is applied where the batch lives, by
    ``BatchCropDataPreprocessor``.

    A sample's crop, flip and layout follow the distributions of the
    per-sample pipeline's steps (``RandomResizedCrop`` with
    ``backend='pillow'``, ``RandomFlip``, ``RandSACSegmentGenerator``; not
    their numbers) and depend on (run seed, epoch, sample index) alone:
    N processes draw what one does, and a resumed run what the
    uninterrupted one drew. ``PerSampleSeedHook`` gives it the run's seed
    and each epoch.

    Each sample: ``inputs`` uint8 [3, H, W] (the whole image) and a
    ``DataSample`` with ``token_rank`` (int64 [N]), ``gt_label`` when the
    data set has labels, and in its metainfo ``crop_box`` (int64 [4]: top,
    left, height, width), ``flip``, ``crop_size`` ((height, width)) and
    ``interpolation``.

    Args:
        dataset (dict): the data set to hold (any registered one whose
            items have ``img``, e.g. ``CheckedFashionMNIST``,
            ``CheckedCIFAR10``), built without a pipeline; its images must
            share one size.
        crop (dict): the arguments of mmpretrain's ``RandomResizedCrop``
            step (its defaults apply); ``backend='pillow'``, whose resize
            the batch crop reproduces.
        layout (dict | None): the arguments of the
            ``RandSACSegmentGenerator`` step (input_size, patch_size,
            segment, ...); None for a pretraining without segments (MAE):
            the samples then carry no ``token_rank``.
        flip_prob (float): chance of a horizontal flip (``RandomFlip``'s
            ``prob``).
        seed (int): the run seed until ``PerSampleSeedHook`` sets the
            runner's.
    """

    def __init__(self, dataset, crop, layout=None, flip_prob=0.5, seed=0):
        # The steps themselves check the arguments and hold the defaults.
        self.crop = RandomResizedCrop(**crop)
        if self.crop.backend != 'pillow':
            raise ValueError(
                f"crop.backend must be 'pillow' (the batch crop resizes as "
                f"Pillow does), got {self.crop.backend!r}")
        check_interpolation(self.crop.interpolation, 'crop.interpolation')
        self.spec = None
        if layout is not None:
            self.spec = RandSACSegmentGenerator(**layout).spec
            if tuple(self.spec.grid) != tuple(
                    side // layout['patch_size'] for side in self.crop.scale):
                raise ValueError(
                    f"layout.input_size {layout['input_size']} is not the "
                    f'crop size {self.crop.scale}')
        if not 0 <= flip_prob <= 1:
            raise ValueError(f'flip_prob must be in [0, 1], got {flip_prob}')
        self.flip_prob = flip_prob
        source = DATASETS.build(dict(dataset, pipeline=[]))
        self.metainfo = getattr(source, 'metainfo', {})
        self.images, self.labels = _hold(source)
        self._seed_epoch = SharedSeedEpoch(seed)

    def set_epoch(self, epoch, seed=None):
        """Called in the main process before an epoch's data is loaded."""
        self._seed_epoch.set_epoch(epoch, seed)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        return self.__getitems__([index])[0]

    def __getitems__(self, indices):
        indices = np.asarray(indices, dtype=np.int64)
        keys = sample_keys(self._seed_epoch.seed, self._seed_epoch.epoch,
                           indices)
        crop = self.crop
        boxes = random_resized_crop_boxes(
            keyed_uniform(keys, CROP_STREAM,
                          crop.max_attempts * UNIFORMS_PER_ATTEMPT),
            *self.images.shape[1:3], crop.crop_ratio_range,
            crop.aspect_ratio_range)
        flips = keyed_uniform(keys, FLIP_STREAM, 1)[:, 0] < self.flip_prob
        ranks = None if self.spec is None else draw_token_ranks(
            self.spec, keyed_draws(keys, LAYOUT_STREAM), len(indices))
        items = []
        for i, index in enumerate(indices):
            sample = DataSample(metainfo=dict(
                sample_idx=int(index), crop_box=boxes[i], flip=bool(flips[i]),
                crop_size=crop.scale, interpolation=crop.interpolation))
            if ranks is not None:
                sample.set_field(ranks[i], 'token_rank')
            if self.labels is not None:
                sample.set_gt_label(int(self.labels[index]))
            items.append(dict(inputs=torch.from_numpy(
                self.images[index]).permute(2, 0, 1), data_samples=sample))
        return items


def _hold(dataset):
    """Every image of ``dataset`` as uint8 [n, H, W, 3], and its labels
    int64 [n] (None without)."""
    images, labels = [], []
    for i in range(len(dataset)):
        info = dataset.get_data_info(i)
        images.append(np.asarray(info['img'], dtype=np.uint8))
        labels.append(info.get('gt_label'))
    shapes = {image.shape for image in images}
    if len(shapes) != 1:
        raise ValueError(f'{type(dataset).__name__}: images of '
                         f'{len(shapes)} sizes ({sorted(shapes)[:3]}...); '
                         'InMemoryBatchImages holds one size')
    labels = None if labels[0] is None else np.asarray(labels, np.int64)
    return np.stack(images), labels
