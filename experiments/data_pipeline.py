"""How many images per second one dataloader worker prepares.

The pretraining pipeline of a config (decode, random resized crop, flip,
segment layout, packing) runs over JPEGs of ImageNet's typical sizes that
it writes itself from the two real photographs scikit-learn ships
(``load_sample_images``: natural content, so JPEG decoding costs what it
costs on real photos, unlike noise or flat colours). One process, one
thread: what one worker does.
"""
import os.path as osp
import time

import numpy as np

__all__ = ['IMAGENET_SIZES', 'check_loads_files', 'pipeline_throughput',
           'write_jpegs']

# (width, height) of common ImageNet training images (the median is about
# 500 x 375; about a tenth are portrait).
IMAGENET_SIZES = ((500, 375), (500, 333), (375, 500), (500, 400),
                  (640, 480), (500, 500))


def write_jpegs(folder, count, seed=0, quality=90):
    """``count`` JPEG photographs of ``IMAGENET_SIZES``, crops of
    scikit-learn's sample photos, in ``folder``.

    Returns:
        list[str]: their paths.
    """
    from PIL import Image
    from sklearn.datasets import load_sample_images
    photos = [Image.fromarray(p) for p in load_sample_images().images]
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(count):
        photo = photos[i % len(photos)]
        width, height = IMAGENET_SIZES[i % len(IMAGENET_SIZES)]
        # A random crop of the photo's aspect, scaled to the target size.
        scale = rng.uniform(0.6, 1.0)
        w = int(photo.width * scale)
        h = min(int(w * height / width), photo.height)
        left = int(rng.integers(0, photo.width - w + 1))
        top = int(rng.integers(0, photo.height - h + 1))
        image = photo.crop((left, top, left + w, top + h)).resize(
            (width, height), Image.BICUBIC)
        path = osp.join(folder, f'{i:05d}.JPEG')
        image.save(path, quality=quality)
        paths.append(path)
    return paths


def check_loads_files(pipeline_cfg):
    """Raises ValueError unless the pipeline loads image files: its first
    step, after ``PerSampleSeed``, is ``LoadImageFromFile`` (an
    ImageNet-style pipeline; a CIFAR, Fashion-MNIST or digits dataset hands
    the pipeline decoded arrays instead, and there is no file to time)."""
    steps = [t.get('type') for t in pipeline_cfg or ()]
    first = next((t for t in steps if t != 'PerSampleSeed'), None)
    if first != 'LoadImageFromFile':
        raise ValueError(
            f'its training pipeline ({" -> ".join(map(str, steps))}) does '
            'not load image files: the dataset hands it decoded arrays. '
            'Allowed: a config whose pipeline starts with LoadImageFromFile '
            '(ImageNet-style, e.g. configs/randsac_vit-b_in1k.py)')


def pipeline_throughput(pipeline_cfg, paths, rounds=3):
    """Times a training pipeline, step by step, over image files.

    Args:
        pipeline_cfg (list[dict]): mmpretrain transforms, the first loading
            the file (``LoadImageFromFile``; :func:`check_loads_files`).
        paths (list[str]): image files.
        rounds (int): passes over the files; the fastest is reported (the
            others absorb the page cache and the machine's noise).

    Returns:
        dict: ``images_per_s`` of the whole pipeline, ``ms_per_image``, and
        ``steps``: milliseconds per image of each transform, by type.
    """
    import torch
    from mmengine.registry import DefaultScope
    from mmpretrain.registry import TRANSFORMS
    check_loads_files(pipeline_cfg)
    torch.set_num_threads(1)  # a dataloader worker
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        steps = [TRANSFORMS.build(dict(t)) for t in pipeline_cfg]
    names = [type(t).__name__ for t in steps]
    best = None
    for _ in range(rounds):
        spent = np.zeros(len(steps))
        for index, path in enumerate(paths):
            results = dict(img_path=path, sample_idx=index)
            for i, step in enumerate(steps):
                start = time.perf_counter()
                results = step(results)
                spent[i] += time.perf_counter() - start
        if best is None or spent.sum() < best.sum():
            best = spent
    per_image = best / len(paths) * 1e3
    return dict(images_per_s=1e3 / per_image.sum(),
                ms_per_image=float(per_image.sum()),
                steps={n: float(ms) for n, ms in zip(names, per_image)})
