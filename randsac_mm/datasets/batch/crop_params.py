"""mmpretrain's ``RandomResizedCrop`` box, drawn for a whole batch at once."""
import math

import numpy as np

__all__ = ['UNIFORMS_PER_ATTEMPT', 'random_resized_crop_boxes']

# An attempt draws the area's share, the log aspect ratio and the two
# offsets (mmpretrain draws the offsets only for a box that fits; unused
# numbers here change nothing).
UNIFORMS_PER_ATTEMPT = 4


def random_resized_crop_boxes(uniforms, height, width, scale=(0.08, 1.0),
                              ratio=(3. / 4., 4. / 3.)):
    """Crop boxes as ``mmpretrain.datasets.transforms.RandomResizedCrop``
    draws them, for B images of one size.

    Per image, each attempt draws an area ``U(scale) * height * width`` and
    an aspect ratio ``exp(U(log ratio))``, rounds the box's sides, and keeps
    the first box that fits, at offsets ``randint(0, side - box + 1)``; when
    none of the attempts fits, the centred box of the image clamped to
    ``ratio``.

    Args:
        uniforms (np.ndarray): float [B, attempts * UNIFORMS_PER_ATTEMPT]
            in [0, 1), attempt-major (mmpretrain's ``max_attempts`` is 10).
        height, width (int): the images' size.
        scale (tuple[float, float]): the box's share of the image's area.
        ratio (tuple[float, float]): the box's width over its height.

    Returns:
        np.ndarray: int64 [B, 4], ``(top, left, box_height, box_width)``.
    """
    uniforms = np.asarray(uniforms, dtype=np.float64)
    if uniforms.ndim != 2 or uniforms.shape[1] % UNIFORMS_PER_ATTEMPT:
        raise ValueError(
            f'uniforms must be [B, attempts * {UNIFORMS_PER_ATTEMPT}], got '
            f'{uniforms.shape}')
    draws = uniforms.reshape(len(uniforms), -1, UNIFORMS_PER_ATTEMPT)
    area = (scale[0] + draws[..., 0] * (scale[1] - scale[0])) \
        * height * width
    log_low, log_high = math.log(ratio[0]), math.log(ratio[1])
    aspect = np.exp(log_low + draws[..., 1] * (log_high - log_low))
    # np.rint rounds halves to even, as Python's round does.
    box_w = np.rint(np.sqrt(area * aspect)).astype(np.int64)
    box_h = np.rint(np.sqrt(area / aspect)).astype(np.int64)
    fits = (box_w > 0) & (box_w <= width) & (box_h > 0) & (box_h <= height)
    top = np.floor(draws[..., 2] * (height - box_h + 1)).astype(np.int64)
    left = np.floor(draws[..., 3] * (width - box_w + 1)).astype(np.int64)
    boxes = np.stack([top, left, box_h, box_w], axis=-1)  # [B, tries, 4]
    first = fits.argmax(axis=1)
    chosen = boxes[np.arange(len(boxes)), first]
    chosen[~fits.any(axis=1)] = _central_box(height, width, ratio)
    return chosen


def _central_box(height, width, ratio):
    """The fallback: the whole image, clamped to the ratio range, centred."""
    in_ratio = width / height
    if in_ratio < min(ratio):
        box_w, box_h = width, int(round(width / min(ratio)))
    elif in_ratio > max(ratio):
        box_w, box_h = int(round(height * max(ratio))), height
    else:
        box_w, box_h = width, height
    return ((height - box_h) // 2, (width - box_w) // 2, box_h, box_w)
