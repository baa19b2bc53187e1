"""The batch crop, resize and flip gives the per-sample pipeline's pixels:
``mmcv.imcrop``, ``mmcv.imresize`` (OpenCV bilinear) and a horizontal
flip, one image at a time."""
import mmcv
import numpy as np
import pytest
import torch

from randsac_mm.datasets.batch.crop_resize import crop_resize_flip

BOXES = np.array([  # top, left, height, width in 20x28 images
    [0, 0, 20, 28],    # the whole image, downscaled
    [3, 5, 10, 12],    # upscaled
    [0, 0, 5, 5],      # a corner
    [10, 20, 10, 8],   # the far corner
    [2, 1, 17, 3],     # thin
    [7, 7, 9, 14]])
FLIPS = np.array([False, True, False, True, False, True])


def _per_sample(image, box, flip, size):
    top, left, height, width = box
    crop = mmcv.imcrop(image, np.array([left, top, left + width - 1,
                                        top + height - 1]))
    out = mmcv.imresize(crop, (size[1], size[0]), interpolation='bilinear',
                        backend='cv2')
    return out[:, ::-1] if flip else out


@pytest.mark.parametrize('size', [16, (12, 20)])
def test_pixels_are_the_per_sample_pipelines(size):
    images = np.random.default_rng(0).integers(0, 256, (6, 20, 28, 3),
                                               dtype=np.uint8)
    batch = torch.from_numpy(images).permute(0, 3, 1, 2)
    out = crop_resize_flip(batch, BOXES, FLIPS, size)
    size = (size, size) if isinstance(size, int) else size
    assert out.dtype == torch.uint8 and out.shape == (6, 3, *size)
    for image, box, flip, ours in zip(images, BOXES, FLIPS, out):
        expected = _per_sample(image, box, flip, size).astype(int)
        difference = np.abs(ours.permute(1, 2, 0).numpy() - expected)
        # OpenCV interpolates uint8 in fixed point: one grey level.
        assert difference.max() <= 1
        assert difference.mean() < 0.2


def test_float_images_stay_float_and_a_whole_image_box_is_the_identity():
    images = torch.rand(2, 1, 8, 8, dtype=torch.float64)
    out = crop_resize_flip(images, [[0, 0, 8, 8]] * 2, [False, True], 8)
    assert out.dtype == torch.float64
    torch.testing.assert_close(out[0], images[0])
    torch.testing.assert_close(out[1], images[1].flip(-1))


def test_boxes_and_flips_of_another_batch_are_refused():
    images = torch.zeros(3, 1, 8, 8, dtype=torch.uint8)
    with pytest.raises(ValueError, match=r'boxes must be \[3, 4\]'):
        crop_resize_flip(images, BOXES, FLIPS, 4)
    with pytest.raises(ValueError, match=r'images must be \[B, C, H, W\]'):
        crop_resize_flip(images[0], BOXES[:3], FLIPS[:3], 4)
