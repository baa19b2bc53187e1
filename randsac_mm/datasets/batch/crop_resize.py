"""Crop, resize and flip a batch of images where it lives (CPU or GPU), as
Pillow resizes one image at a time."""
import torch

__all__ = ['RESAMPLING_FILTERS', 'check_interpolation', 'crop_resize_flip']


def _bicubic(x):
    # Pillow's cubic convolution, a = -0.5 (torch's bicubic has -0.75).
    a = -0.5
    x = x.abs()
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return torch.where(x < 1, near, torch.where(x < 2, far,
                                                torch.zeros_like(x)))


def _bilinear(x):
    return (1 - x.abs()).clamp(min=0)


# interpolation -> (filter, support): Pillow's BICUBIC and BILINEAR.
RESAMPLING_FILTERS = {'bicubic': (_bicubic, 2.0), 'bilinear': (_bilinear, 1.0)}


def check_interpolation(interpolation, argument='interpolation'):
    """Raises ValueError, naming ``argument``, for an interpolation this
    resize does not have."""
    if interpolation not in RESAMPLING_FILTERS:
        raise ValueError(f'{argument} must be one of '
                         f'{tuple(RESAMPLING_FILTERS)}, got '
                         f'{interpolation!r}')


def _weights(start, length, out_size, side, interpolation):
    """Pillow's resampling weights of one axis for each image's crop.

    Pillow resizes the crop (``length`` pixels from ``start``) to
    ``out_size``: output pixel i is centred at ``(i + 0.5) * scale`` in the
    crop (``scale = length / out_size``), its filter widened by the scale
    when shrinking (antialiasing), its taps clipped to the crop and its
    weights normalised to sum to 1 (``precompute_coeffs`` in Pillow's
    Resample.c).

    Returns:
        torch.Tensor: float64 [B, out_size, side], rows of weights over the
        whole axis (zero outside the crop).
    """
    kernel, support = RESAMPLING_FILTERS[interpolation]
    length = length.double()[:, None, None]
    scale = length / out_size
    widen = scale.clamp(min=1.0)
    i = torch.arange(out_size, dtype=torch.float64,
                     device=start.device)[None, :, None]
    center = (i + 0.5) * scale  # [B, out, 1]
    # C's (int) truncates toward zero; taps [low, high) inside the crop.
    low = torch.trunc(center - support * widen + 0.5).clamp(min=0)
    high = torch.minimum(torch.trunc(center + support * widen + 0.5),
                         length)
    x = (torch.arange(side, dtype=torch.float64, device=start.device)
         [None, None, :] - start.double()[:, None, None])  # in the crop
    weights = kernel((x - center + 0.5) / widen)
    weights = torch.where((x >= low) & (x < high), weights,
                          torch.zeros_like(weights))
    return weights / weights.sum(-1, keepdim=True)


def crop_resize_flip(images, boxes, flips, size, interpolation='bicubic'):
    """Each image's box, resized to ``size`` and mirrored left to right
    where ``flips`` says: what mmpretrain's ``RandomResizedCrop`` with
    ``backend='pillow'`` (``mmcv.imcrop``, then Pillow's ``resize``) and
    ``RandomFlip`` give one image at a time: the same pixels, Pillow's
    8-bit fixed point included.

    Like Pillow's C code, the resize is separable, across the rows first,
    each pass rounded for integer images; a pass is a batched matrix
    product with per-image weights (:func:`_weights`), so one call serves
    the batch on any device. (Pillow 13 takes the vertical pass first for
    some crops it shrinks vertically; there the two roundings differ by
    more, up to 18 levels measured on a 17x3 crop shrunk to 16 rows. A
    random resized crop to the image's own side never shrinks, and gives
    Pillow's pixels.) torch's own resamplers do not: ``grid_sample`` has
    a = -0.75 and no antialiasing, and ``interpolate`` differed from Pillow
    by up to 15 grey levels (8 with ``antialias=True``) on a 10x12 image
    enlarged to 16x16, and resizes a whole batch to one scale where each
    crop here has its own.

    Args:
        images (torch.Tensor): uint8 or float [B, C, H, W].
        boxes (torch.Tensor | np.ndarray): int [B, 4], ``(top, left,
            box_height, box_width)`` inside the image.
        flips (torch.Tensor | np.ndarray): bool [B].
        size (int | tuple[int, int]): output ``(height, width)``.
        interpolation (str): 'bicubic' or 'bilinear' (Pillow's).

    Returns:
        torch.Tensor: [B, C, size_h, size_w], contiguous, the dtype of
        ``images`` (integer images rounded after each pass as Pillow rounds
        8-bit ones), on their device.
    """
    check_interpolation(interpolation)
    if images.ndim != 4:
        raise ValueError(f'images must be [B, C, H, W], got '
                         f'{tuple(images.shape)}')
    out_h, out_w = (size, size) if isinstance(size, int) else size
    batch, _, height, width = images.shape
    device = images.device
    boxes = torch.as_tensor(boxes, device=device).long()
    flips = torch.as_tensor(flips, device=device).bool()
    if boxes.shape != (batch, 4) or flips.shape != (batch, ):
        raise ValueError(f'boxes must be [{batch}, 4] and flips [{batch}], '
                         f'got {tuple(boxes.shape)} and '
                         f'{tuple(flips.shape)}')
    top, left, box_h, box_w = boxes.unbind(1)
    rows = _weights(top, box_h, out_h, height, interpolation)
    cols = _weights(left, box_w, out_w, width, interpolation)
    cols = torch.where(flips[:, None, None], cols.flip(1), cols)
    # Each pass is einsum's batched product, which leaves the rows outermost
    # ([B, H, C, W] in memory): the result is made contiguous, the order the
    # model's layers take images in.
    if images.is_floating_point():
        rows, cols = rows.to(images.dtype), cols.to(images.dtype)
        across = torch.einsum('bwx,bchx->bchw', cols, images)
        return torch.einsum('bhy,bcyw->bchw', rows, across).contiguous()
    # Pillow's 8-bit passes in fixed point: weights rounded to multiples of
    # 2**-22, each output rounded down after adding a half, then clipped.
    # Integers that float64 holds exactly (sums below 2**40) make it exact.
    rows, cols = _fixed_point(rows), _fixed_point(cols)
    across = _clip8(torch.einsum('bwx,bchx->bchw', cols, images.double()))
    out = _clip8(torch.einsum('bhy,bcyw->bchw', rows, across))
    return out.to(images.dtype).contiguous()


PRECISION_BITS = 22  # Pillow's for 8-bit images: 32 - 8 - 2


def _fixed_point(weights):
    """Pillow's integer weights (``normalize_coeffs_8bpc``): rounded half
    away from zero, as float64."""
    scaled = weights * 2.0**PRECISION_BITS
    return torch.where(scaled < 0, torch.trunc(scaled - 0.5),
                       torch.trunc(scaled + 0.5))


def _clip8(sums):
    """A pass's fixed-point sums as 8-bit values (Pillow's ``clip8``)."""
    half = 2.0**(PRECISION_BITS - 1)
    return torch.floor((sums + half) / 2.0**PRECISION_BITS).clamp_(0, 255)
