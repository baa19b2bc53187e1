"""Pictures of what a RandSAC checkpoint predicts, for your own images.

For each image: a segment layout is sampled as the config's training
pipeline samples it, every segment but the first is predicted from the
earlier ones, and the tool writes

- ``reconstruction.png``: per image, the original, its serialization (a
  colour per prediction step) and the prediction;
- ``<name>_reveal.gif``: the prediction revealed segment by segment, in
  prediction order.

    python tools/visualization/vis_reconstruction.py CONFIG CHECKPOINT \\
        --img a.jpg b.png [--out-dir DIR] [--seed 0]
    python tools/visualization/vis_reconstruction.py CONFIG CHECKPOINT \\
        --dataset [--num 8]       # images spread over the config's data

Images are centre-cropped to a square and resized to the model's input
size. CONFIG is the pretraining config the checkpoint was trained with.
"""
import argparse
import os
import os.path as osp
import sys

import numpy as np
from PIL import Image

ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('config', help='the pretraining config')
    parser.add_argument('checkpoint', help='a checkpoint of that config')
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument('--img', nargs='+', help='image files')
    source.add_argument('--dataset', action='store_true',
                        help="--num images of the config's training data")
    parser.add_argument('--num', type=int, default=8,
                        help='images taken with --dataset, evenly spaced '
                        'over it (default 8)')
    parser.add_argument('--out-dir', default='work_dirs/vis_reconstruction')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the sampled layouts')
    parser.add_argument('--device', default='cpu')
    args = parser.parse_args(argv)
    if args.num < 1:
        parser.error(f'--num must be >= 1, got {args.num}')
    for path in [args.config, args.checkpoint] + (args.img or []):
        if not osp.isfile(path):
            parser.error(f'no such file: {path!r}')
    return args


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
            image = np.asarray(Image.open(info['img_path']).convert('RGB'))
        images.append(image)
        names.append(f'sample{index}')
    return images, names


def main(argv=None):
    args = parse_args(argv)
    sys.path.insert(0, ROOT)
    from mmengine.config import Config

    import randsac_mm.mmpretrain  # noqa: F401  (registers)
    from randsac_mm.datasets import RandSACSegmentGenerator
    from randsac_mm.utils.reconstruction import (predict_images,
                                                 reconstruction_figure,
                                                 save_reveal_gif)
    from randsac_mm.utils.run_config import build_model
    from randsac_mm.utils.visualization import square_crop

    cfg = Config.fromfile(args.config)
    generator = RandSACSegmentGenerator.from_config(cfg)  # refuses non-RandSAC
    model = build_model(cfg, args.checkpoint).to(args.device).eval()
    side = model.backbone.img_size[0]
    if args.img:
        images = [np.asarray(Image.open(p).convert('RGB')) for p in args.img]
        names = [osp.splitext(osp.basename(p))[0] for p in args.img]
    else:
        images, names = dataset_images(cfg, args.num)
    images = np.stack([square_crop(image, side) for image in images])
    np.random.seed(args.seed)  # the generator draws from numpy's state
    ranks = np.stack([generator(dict())['token_rank'] for _ in images])
    predictions = predict_images(model, images, ranks)

    os.makedirs(args.out_dir, exist_ok=True)
    scale = max(1, 128 // side)
    grid = model.backbone.patch_resolution
    figure = osp.join(args.out_dir, 'reconstruction.png')
    reconstruction_figure(
        images, ranks, predictions, grid, figure,
        f'{osp.basename(args.checkpoint)}: every segment but the first '
        'predicted from the earlier ones', scale)
    written = [figure]
    for name, prediction, rank in zip(names, predictions, ranks):
        gif = osp.join(args.out_dir, f'{name}_reveal.gif')
        save_reveal_gif(prediction, rank, grid, gif, scale)
        written.append(gif)
    print('wrote ' + ', '.join(written))


if __name__ == '__main__':
    main()
