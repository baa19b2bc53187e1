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
import os.path as osp

import numpy as np
from PIL import Image

from randsac_mm.apis.cli import positive_int


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('config', help='the pretraining config')
    parser.add_argument('checkpoint', help='a checkpoint of that config')
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument('--img', nargs='+', help='image files')
    source.add_argument('--dataset', action='store_true',
                        help="--num images of the config's training data")
    parser.add_argument('--num', type=positive_int, default=8,
                        help='images taken with --dataset, evenly spaced '
                        'over it (default 8)')
    parser.add_argument('--out-dir', default='work_dirs/vis_reconstruction')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the sampled layouts')
    parser.add_argument('--device', default='cpu')
    args = parser.parse_args(argv)
    for path in [args.config, args.checkpoint] + (args.img or []):
        if not osp.isfile(path):
            parser.error(f'no such file: {path!r}')
    return args


def main(argv=None):
    args = parse_args(argv)
    from mmengine.config import Config

    import randsac_mm.registration  # noqa: F401  (registers)
    from randsac_mm.apis import build_model
    from randsac_mm.datasets import RandSACSegmentGenerator
    from randsac_mm.visualization.reconstruction import (
        dataset_images,
        write_reconstructions,
    )
    cfg = Config.fromfile(args.config)
    generator = RandSACSegmentGenerator.from_config(cfg)  # refuses others
    model = build_model(cfg, args.checkpoint).to(args.device).eval()
    if args.img:
        images = [np.asarray(Image.open(p).convert('RGB')) for p in args.img]
        names = [osp.splitext(osp.basename(p))[0] for p in args.img]
    else:
        images, names = dataset_images(cfg, args.num)
    written = write_reconstructions(
        model, generator, images, names, args.out_dir, args.seed,
        f'{osp.basename(args.checkpoint)}: every segment but the first '
        'predicted from the earlier ones')
    print('wrote ' + ', '.join(written))


if __name__ == '__main__':
    main()
