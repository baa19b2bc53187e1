"""The batch crop, resize and flip gives the per-sample pipeline's pixels:
mmpretrain's ``RandomResizedCrop`` with ``backend='pillow'``
(``mmcv.imcrop``, then Pillow's resize) and ``RandomFlip``, one image at a
time."""
import mmcv
import numpy as np
import pytest
import torch

from randsac_mm.datasets.batch import (
    UNIFORMS_PER_ATTEMPT,
    crop_resize_flip,
    keyed_uniform,
    random_resized_crop_boxes,
    sample_keys,
)


def _per_sample(image, box, flip, size, interpolation):
    top, left, height, width = box
    crop = mmcv.imcrop(image, np.array([left, top, left + width - 1,
                                        top + height - 1]))
    out = mmcv.imresize(crop, (size[1], size[0]),
                        interpolation=interpolation, backend='pillow')
    return out[:, ::-1] if flip else out


def _compare(images, boxes, flips, size, interpolation):
    batch = torch.from_numpy(images).permute(0, 3, 1, 2)
    out = crop_resize_flip(batch, boxes, flips, size, interpolation)
    size = (size, size) if isinstance(size, int) else size
    assert out.dtype == torch.uint8 and out.shape == (len(images), 3, *size)
    assert out.is_contiguous()  # as the model's layers take images
    differences = [
        np.abs(ours.permute(1, 2, 0).numpy().astype(int)
               - _per_sample(image, box, flip, size, interpolation))
        for image, box, flip, ours in zip(images, boxes, flips, out)]
    return np.stack(differences)


@pytest.mark.parametrize('interpolation', ['bicubic', 'bilinear'])
def test_random_resized_crops_are_the_per_sample_pipelines(interpolation):
    # The paper's CIFAR step: 32 px images, boxes of 20% to all of the
    # image, resized to 32 px, half of them flipped.
    images = np.random.default_rng(0).integers(0, 256, (64, 32, 32, 3),
                                               dtype=np.uint8)
    numbers = keyed_uniform(sample_keys(0, 0, np.arange(64)), 1,
                            10 * UNIFORMS_PER_ATTEMPT + 1)
    boxes = random_resized_crop_boxes(numbers[:, :-1], 32, 32, (0.2, 1.0))
    flips = numbers[:, -1] < 0.5
    difference = _compare(images, boxes, flips, 32, interpolation)
    assert difference.max() == 0  # Pillow's fixed point, reproduced


def test_corner_thin_and_downscaled_boxes():
    images = np.random.default_rng(1).integers(0, 256, (5, 20, 28, 3),
                                               dtype=np.uint8)
    boxes = np.array([
        [0, 0, 20, 28],    # the whole image, shrunk
        [0, 0, 5, 5],      # a corner
        [10, 20, 10, 8],   # the far corner
        [4, 1, 3, 17],     # thin
        [7, 7, 9, 14]])
    flips = np.array([False, True, False, True, True])
    for interpolation in ('bicubic', 'bilinear'):
        difference = _compare(images, boxes, flips, (12, 20), interpolation)
        assert difference.max() == 0


def test_float_images_stay_float_and_a_whole_image_box_is_the_identity():
    images = torch.rand(2, 1, 8, 8, dtype=torch.float64)
    out = crop_resize_flip(images, [[0, 0, 8, 8]] * 2, [False, True], 8)
    assert out.dtype == torch.float64
    torch.testing.assert_close(out[0], images[0])
    torch.testing.assert_close(out[1], images[1].flip(-1))


def test_bad_arguments_are_refused_naming_them():
    images = torch.zeros(3, 1, 8, 8, dtype=torch.uint8)
    boxes, flips = [[0, 0, 8, 8]] * 3, [False] * 3
    with pytest.raises(ValueError, match=r'boxes must be \[3, 4\]'):
        crop_resize_flip(images, boxes[:2], flips[:2], 4)
    with pytest.raises(ValueError, match=r'images must be \[B, C, H, W\]'):
        crop_resize_flip(images[0], boxes, flips, 4)
    with pytest.raises(ValueError, match="interpolation must be one of "
                       r"\('bicubic', 'bilinear'\), got 'lanczos'"):
        crop_resize_flip(images, boxes, flips, 4, 'lanczos')
