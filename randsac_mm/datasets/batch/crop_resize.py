"""Crop, resize and flip a batch of images where it lives (CPU or GPU)."""
import torch
import torch.nn.functional as F

__all__ = ['crop_resize_flip']


def _source_coords(start, length, out_size, side):
    """Where each output pixel samples the source, in grid_sample's
    normalised coordinates (align_corners=False): float32 [B, out_size].

    OpenCV's bilinear resize of the crop samples pixel ``j`` at ``start +
    (j + 0.5) * length / out_size - 0.5`` and repeats the crop's edge
    pixels beyond it; clamping to the crop (not the image) does the same.
    """
    j = torch.arange(out_size, dtype=torch.float32, device=start.device)
    step = length.float()[:, None] / out_size
    x = start.float()[:, None] + (j + 0.5) * step - 0.5
    x = torch.minimum(torch.maximum(x, start.float()[:, None]),
                      (start + length - 1).float()[:, None])
    return (2 * x + 1) / side - 1


def crop_resize_flip(images, boxes, flips, size):
    """Each image's box, resized bilinearly to ``size`` and mirrored left
    to right where ``flips`` says: what mmpretrain's ``RandomResizedCrop``
    (``mmcv.imcrop``, then ``mmcv.imresize`` with OpenCV's bilinear) and
    ``RandomFlip`` give one image at a time, within OpenCV's fixed-point
    rounding (one grey level).

    One ``grid_sample`` call for the batch (torch's own op, on every
    device; torchvision's ``roi_align`` would do the same sampling, but
    the GPU node carries no torchvision).

    Args:
        images (torch.Tensor): uint8 or float [B, C, H, W].
        boxes (torch.Tensor | np.ndarray): int [B, 4], ``(top, left,
            box_height, box_width)`` inside the image.
        flips (torch.Tensor | np.ndarray): bool [B].
        size (int | tuple[int, int]): output ``(height, width)``.

    Returns:
        torch.Tensor: [B, C, size_h, size_w], the dtype of ``images``
        (integers rounded to the nearest level), on their device.
    """
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
    ys = _source_coords(top, box_h, out_h, height)
    xs = _source_coords(left, box_w, out_w, width)
    xs = torch.where(flips[:, None], xs.flip(1), xs)
    grid = torch.stack(torch.broadcast_tensors(
        xs[:, None, :], ys[:, :, None]), dim=-1)  # [B, out_h, out_w, 2]
    pixels = images if images.is_floating_point() else images.float()
    out = F.grid_sample(pixels, grid.to(pixels.dtype), mode='bilinear',
                        padding_mode='border', align_corners=False)
    if images.is_floating_point():
        return out
    return out.round_().clamp_(0, 255).to(images.dtype)
