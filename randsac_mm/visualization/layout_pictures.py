"""Drawing helpers shared by tools/visualization and the demo (numpy/PIL)."""
import numpy as np
from PIL import Image

__all__ = ['token_map', 'square_crop', 'reveal_frames', 'save_gif',
           'steps_overlay']


def square_crop(image, side):
    """Centre square crop, resized to ``side``: uint8 [side, side, 3]."""
    h, w = image.shape[:2]
    s = min(h, w)
    top, left = (h - s) // 2, (w - s) // 2
    crop = Image.fromarray(image[top:top + s, left:left + s])
    return np.asarray(crop.resize((side, side), Image.BICUBIC))


def token_map(values, grid, side):
    """A per-token array [N] as a per-pixel image [side, side]."""
    return np.kron(values.reshape(grid), np.ones(
        (side // grid[0], side // grid[1]), dtype=values.dtype))


def reveal_frames(image, token_rank, grid):
    """Frames revealing ``image`` segment by segment in prediction order.

    Args:
        image (np.ndarray): uint8 [S, S, 3], S a multiple of the grid.
        token_rank (np.ndarray): int [h * w], prediction step per token.
        grid (tuple[int, int]): (h, w).

    Returns:
        list[np.ndarray]: num_segments + 1 uint8 frames; the segment just
        revealed is outlined in gold.
    """
    steps = token_map(np.asarray(token_rank), grid, image.shape[0])
    hidden = (image * 0.15 + 40).astype(np.uint8)
    frames = []
    for step in range(int(steps.max()) + 2):
        frame = np.where((steps < step)[..., None], image, hidden)
        if step > 0:
            current = steps == step - 1
            inner = (np.roll(current, 1, 0) & np.roll(current, -1, 0)
                     & np.roll(current, 1, 1) & np.roll(current, -1, 1))
            frame = frame.copy()
            frame[current & ~inner] = (255, 215, 0)
        frames.append(frame.astype(np.uint8))
    return frames


def save_gif(frames, path, frame_ms=250):
    """Writes uint8 frames as a looping GIF."""
    images = [Image.fromarray(f) for f in frames]
    images[0].save(path, save_all=True, append_images=images[1:],
                   duration=frame_ms, loop=0)


# The colours of the prediction steps, first to last.
STEP_COLOURS = 'viridis'


def steps_overlay(image, token_rank, grid, cmap=STEP_COLOURS, alpha=0.55):
    """``image`` blended with a colour per prediction step: uint8 RGB."""
    import matplotlib
    steps = token_map(np.asarray(token_rank), grid, image.shape[0])
    colours = matplotlib.colormaps[cmap](steps / max(steps.max(), 1))[..., :3]
    blended = (1 - alpha) * image / 255.0 + alpha * colours
    return (blended * 255).round().astype(np.uint8)
