"""What a RandSAC model predicts for images, as pictures.

Used by the demo and ``tools/visualization/vis_reconstruction.py``:
given images and their segment layouts, every segment but the first is
predicted from the earlier ones (the training task, in the model's eval
mode), and the predictions are drawn next to the originals and their
serialization.
"""
import numpy as np
import torch

from .layout_pictures import (
    STEP_COLOURS,
    reveal_frames,
    save_gif,
    steps_overlay,
)

__all__ = ['dataset_images', 'predict_images', 'reconstruction_figure',
           'save_reveal_gif', 'write_reconstructions']


@torch.no_grad()
def predict_images(model, images, token_rank):
    """The model's prediction of every segment but the first, as images.

    Args:
        model (RandSAC): a pretraining model; its data preprocessor's mean
            and std map pixels to its input space.
        images (np.ndarray): uint8 [B, H, W, 3] at the model's input size.
        token_rank (np.ndarray): int [B, N], each token's prediction step.

    Returns:
        np.ndarray: uint8 [B, H, W, 3]: the first segment as it is (given,
        never predicted), every other token as predicted. With ``norm_pix``
        targets the prediction is a normalised patch, mapped back to pixels
        with the true patch's mean and variance (as MAE's pictures do), so
        it shows structure, not brightness.
    """
    from mmpretrain.structures import DataSample
    preprocessor = model.data_preprocessor
    # mmpretrain's preprocessors hold mean and std only when they normalise.
    if getattr(preprocessor, 'mean', None) is None:
        raise ValueError(
            'predict_images: the model has no normalising data '
            'preprocessor; build it with randsac_mm.apis.build_model(cfg), '
            'which passes the config\'s data_preprocessor as the Runner '
            'does')
    mean = preprocessor.mean.view(1, -1, 1, 1).cpu()
    std = preprocessor.std.view(1, -1, 1, 1).cpu()
    raw = torch.from_numpy(np.ascontiguousarray(images)).permute(
        0, 3, 1, 2).float()
    inputs = (raw - mean) / std
    samples = []
    for rank in token_rank:
        sample = DataSample()
        sample.set_field(np.asarray(rank), 'token_rank')
        samples.append(sample)
    model.eval()
    device = next(model.parameters()).device
    out = model.reconstruct(inputs.to(device), samples)
    head = model.head
    pred = out['pred'].float().cpu()
    if head.norm_pix:
        patches = head.patchify(inputs)
        pred = pred * (patches.var(-1, keepdim=True) + 1e-6)**0.5 + \
            patches.mean(-1, keepdim=True)
    grid = model.backbone.patch_resolution
    pixels = head.unpatchify(pred, grid) * std + mean
    predicted = head.unpatchify(
        out['loss_mask'].cpu()[..., None].expand_as(pred).float(), grid) > 0
    shown = torch.where(predicted, pixels, raw).clamp(0, 255).round()
    return shown.byte().permute(0, 2, 3, 1).numpy()


def _enlarge(image, scale):
    return np.kron(image, np.ones((scale, scale, 1), dtype=np.uint8))


def reconstruction_figure(images, token_rank, predictions, grid, path,
                          title, scale=1, names=None):
    """Writes a PNG: per image (column, headed by its name), the original,
    its serialization (a colour per prediction step, with a key from the
    first step to the last) and the prediction.

    Args:
        images, predictions (np.ndarray): uint8 [B, H, W, 3].
        token_rank (np.ndarray): int [B, N].
        grid (tuple[int, int]): token grid (h, w).
        path (str | None): the PNG to write; None: the figure is returned.
        title (str): the figure's title.
        scale (int): pixel repetition for small images.
        names (list[str] | None): the columns' names; None: none.
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    count = len(images)
    fig, axes = plt.subplots(3, count, figsize=(1.5 * count + 1.2, 5.0),
                             squeeze=False)
    for col in range(count):
        big = _enlarge(images[col], scale)
        panels = (big, steps_overlay(big, token_rank[col], grid),
                  _enlarge(predictions[col], scale))
        for row, picture in enumerate(panels):
            axes[row, col].imshow(picture)
            axes[row, col].set_xticks([])
            axes[row, col].set_yticks([])
        if names is not None:
            axes[0, col].set_title(names[col], fontsize=7)
    for row, name in enumerate(('original', 'serialization', 'prediction')):
        axes[row, 0].set_ylabel(name, fontsize=8)
    key = fig.colorbar(  # the serialization's colours, first to last
        matplotlib.cm.ScalarMappable(cmap=STEP_COLOURS),
        ax=axes[1, :].tolist(),
        fraction=0.04, pad=0.02, ticks=[0, 1])
    key.ax.set_yticklabels(['first', 'last'], fontsize=7)
    key.set_label('prediction step', fontsize=7)
    fig.suptitle(title, fontsize=9)
    if path is None:
        return fig
    fig.savefig(path, dpi=110, bbox_inches='tight')
    plt.close(fig)


def save_reveal_gif(prediction, token_rank, grid, path, scale=1):
    """A GIF that reveals the prediction segment by segment, in order
    (the first frame shows nothing, the second the given first segment)."""
    save_gif(reveal_frames(_enlarge(prediction, scale), token_rank, grid),
             path)


def dataset_images(cfg, count):
    """uint8 [H, W, 3] images (and names, ``sample<index>``) from the
    config's training data, before its pipeline (no crop, no flip)."""
    from mmengine.registry import DefaultScope
    from mmpretrain.registry import DATASETS
    spec = dict(cfg.train_dataloader.dataset, pipeline=[])
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        dataset = DATASETS.build(spec)
    images, names = [], []
    # Evenly spaced, so a data set sorted by class shows several classes.
    for index in np.linspace(0, len(dataset) - 1, min(count, len(dataset))):
        index = int(index)
        info = dataset.get_data_info(index)
        if 'img' in info:
            image = np.asarray(info['img'])
        else:
            from PIL import Image
            image = np.asarray(Image.open(info['img_path']).convert('RGB'))
        images.append(image)
        names.append(f'sample{index}')
    return images, names


def write_reconstructions(model, generator, images, names, out_dir, seed=0,
                          title=None, progress=None):
    """A model's predictions of ``images``: ``reconstruction.png``
    (original, serialization, prediction) and ``<name>_reveal.gif`` each.

    Args:
        model (RandSAC): in eval mode, normalising its inputs.
        generator (RandSACSegmentGenerator): the layouts' step
            (``RandSACSegmentGenerator.from_config(cfg)``).
        images (list[np.ndarray]): uint8 [H, W, 3], cropped square to the
            model's input size here.
        names (list[str]): one per image, for the GIFs.
        seed (int): seeds the layouts (the generator draws from numpy).
        title (str): the figure's title.
        progress (Callable | None): ``progress(title, total)`` returns a
            ``tick()``, called after the prediction and after each file
            (e.g. ``randsac_mm.evaluation.ProgressBars()``); None: quiet.

    Returns:
        list[str]: the files written.
    """
    import os
    import os.path as osp

    from .layout_pictures import square_crop
    def tick():
        pass

    if progress is not None:
        # The bar counts steps, not images: say which.
        steps = len(images) + 2
        tick = progress(f'{len(images)} images: predicting them, then '
                        f'writing reconstruction.png and {len(images)} GIFs '
                        f'to {out_dir} ({steps} steps)', steps)
    side = model.backbone.img_size[0]
    images = np.stack([square_crop(image, side) for image in images])
    np.random.seed(seed)  # the generator draws from numpy's state
    ranks = np.stack([generator(dict())['token_rank'] for _ in images])
    predictions = predict_images(model, images, ranks)
    tick()
    os.makedirs(out_dir, exist_ok=True)
    scale = max(1, 128 // side)
    grid = model.backbone.patch_resolution
    figure = osp.join(out_dir, 'reconstruction.png')
    reconstruction_figure(images, ranks, predictions, grid, figure,
                          title or 'every segment but the first predicted '
                          'from the earlier ones', scale, names)
    tick()
    written = [figure]
    for name, prediction, rank in zip(names, predictions, ranks):
        gif = osp.join(out_dir, f'{name}_reveal.gif')
        save_reveal_gif(prediction, rank, grid, gif, scale)
        written.append(gif)
        tick()
    return written
