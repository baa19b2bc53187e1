r"""Images per second one dataloader worker prepares for a pretraining
config, and how many workers a GPU needs. From the repository root:

    python -m experiments.benchmarks.data_pipeline \
        configs/randsac_vit-b_in1k.py \
        [--images 200] [--peak-tflops 989 --mfu 0.4] [--out data.json]

The config's training pipeline (decode, random resized crop, flip, segment
layout, packing) runs, step by step, in one process with one thread (what
a worker does), over JPEGs of ImageNet's typical sizes that it writes to a
temporary folder from the two real photographs scikit-learn ships
(``load_sample_images``: natural content, so JPEG decoding costs what it
costs on real photos, unlike noise or flat colours). A GPU's appetite
comes from the config's FLOPs: ``--mfu`` of ``--peak-tflops`` over 3 x 2 x
the forward multiply-accumulates of an image
(tools/analysis/get_flops.py), or ``--gpu-images-per-s`` directly.
"""
import argparse
import math
import os.path as osp
import tempfile
import time

import numpy as np

from randsac_mm.cli.args import (
    positive_float,
    positive_int,
)
from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CONFIG
from randsac_mm.cli.run_tool import run_tool

from ..benchmark_io import machine_info, write_json

__all__ = ['IMAGENET_SIZES', 'check_loads_files', 'pipeline_throughput',
           'write_jpegs']

PROG = 'python -m experiments.benchmarks.data_pipeline'
# bf16 dense peak of an H100 SXM, TFLOP/s (NVIDIA's datasheet).
H100_BF16_TFLOPS = 989.0

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


def fraction(text):
    """argparse ``type`` of a share: a float in (0, 1]."""
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f'must be in (0, 1], got {text}')
    return value


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_path('config', kind=CONFIG,
                        help='a RandSAC pretraining config whose '
                        'training pipeline loads image files (ImageNet-style'
                        ', e.g. configs/randsac_vit-b_in1k.py)')
    parser.add_argument('--images', type=positive_int, default=200,
                        help='JPEGs to write and time')
    parser.add_argument('--rounds', type=positive_int, default=3,
                        help='passes over them; the fastest counts')
    parser.add_argument('--peak-tflops', type=positive_float,
                        default=H100_BF16_TFLOPS,
                        help='GPU peak TFLOP/s (the default: H100 bf16)')
    parser.add_argument('--mfu', type=fraction, default=0.4,
                        help='model FLOPs utilisation to feed, in (0, 1]')
    parser.add_argument('--gpu-images-per-s', type=positive_float,
                        default=None,
                        help='images/s one GPU trains, instead of '
                        '--peak-tflops and --mfu; None: from them')
    parser.add_argument('--out', help='JSON file to write; None: not '
                        'written')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def check_config(path):
    """The config, if this command can time it (UserError naming it if
    not): a RandSAC pretraining config (its FLOPs need the segment layout)
    whose training pipeline loads image files."""
    from randsac_mm.cli.config_file import read_config
    from randsac_mm.run.builds import build_segment_generator
    cfg = read_config(path)
    build_segment_generator(cfg, 'config', path)
    try:
        check_loads_files(cfg.train_dataloader.dataset.get('pipeline'))
    except ValueError as e:
        raise UserError(f'config: {osp.basename(path)}: {e}') from None
    return cfg


def main(argv=None):
    args = parse_args(argv)
    import randsac_mm.registration  # noqa: F401  (registers)
    from randsac_mm.analysis.flops import forward_macs
    cfg = check_config(args.config)
    pipeline = cfg.train_dataloader.dataset.pipeline
    with tempfile.TemporaryDirectory() as folder:
        paths = write_jpegs(folder, args.images)
        result = pipeline_throughput(pipeline, paths, args.rounds)
    macs = forward_macs(cfg)
    need = args.gpu_images_per_s or \
        args.mfu * args.peak_tflops * 1e12 / (6 * macs)
    workers = math.ceil(need / result['images_per_s'])
    result.update(config=args.config, images=args.images,
                  forward_gmacs=macs / 1e9, gpu_images_per_s=need,
                  workers_per_gpu=workers,
                  config_workers=cfg.train_dataloader.num_workers,
                  machine=machine_info())
    print(f'{args.config}: one worker, {result["ms_per_image"]:.2f} ms per '
          f'image = {result["images_per_s"]:.0f} images/s')
    for step, ms in result['steps'].items():
        print(f'  {step:26s} {ms:6.2f} ms')
    source = f'{args.gpu_images_per_s:.0f} images/s given' \
        if args.gpu_images_per_s else (
            f'{args.mfu:.0%} of {args.peak_tflops:g} TFLOP/s at '
            f'{6 * macs / 1e9:.0f} GFLOP per image')
    print(f'a GPU training {need:.0f} images/s ({source}) needs {workers} '
          f'workers; the config has num_workers='
          f'{cfg.train_dataloader.num_workers}')
    if args.out:
        write_json(args.out, result)


if __name__ == '__main__':
    run_tool(main, prog=PROG)
