"""Pictures of RandSAC segment layouts for one image.

Writes three files to ``--out-dir``:
  - ``<name>_schemes.png``: the paper's Figure 2 panels: original, raster
    pixel, raster patch, random patch, random square, random blob. Colour
    is the prediction step (dark = early, bright = late).
  - ``<name>_hierarchy.png``: the Figure 3 hierarchy: a colour per
    partition, shades for its segments, arrows along the prediction order.
  - ``<name>_reveal.gif``: the image revealed segment by segment in
    prediction order (like the paper's supplementary video).

Examples:
    # a photo (or sklearn's bundled sample photo with --img sklearn:china.jpg)
    python tools/visualization/vis_segments.py --img photo.jpg
    # a sample of a config's training set (the embedded digits here)
    python tools/visualization/vis_segments.py \
        --config configs/_base_/datasets/digits.py --index 7 \
        --input-size 32 --patch-size 4 --square-size 2 --num-segments 7
"""
import argparse
import os
import os.path as osp

import numpy as np
from PIL import Image


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Draw RandSAC segment layouts (Figure 2 and 3 of the '
        'paper, and a reveal GIF) for one image.')
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        '--img', help='image file, or sklearn:china.jpg / sklearn:flower.jpg '
        "for scikit-learn's bundled sample photos")
    source.add_argument('--config',
                        help='config whose train_dataloader.dataset to read')
    parser.add_argument('--index', type=int, default=0,
                        help='sample index in the --config dataset')
    parser.add_argument('--input-size', type=int, default=192,
                        help='side the image is resized to (default 192)')
    parser.add_argument('--patch-size', type=int, default=16,
                        help='patch side P in pixels (default 16)')
    parser.add_argument('--square-size', type=int, default=3,
                        help='square side M in tokens (default 3)')
    parser.add_argument('--num-segments', type=int, default=11,
                        help='blob count K (default 11)')
    parser.add_argument(
        '--hierarchy', type=int, nargs='*', default=[4],
        help='coarser group counts of the square hierarchy figure and GIF '
        '(default: 4, the paper\'s 16 -> 4 at M=3 on 12x12 tokens)')
    parser.add_argument('--pixel-grid', type=int, default=32,
                        help='side of the downsampled image of the raster '
                        'pixel panel (default 32)')
    parser.add_argument('--seed', type=int, default=0, help='layout seed')
    parser.add_argument('--out-dir', default='work_dirs/vis_segments',
                        help='where the PNGs and the GIF go')
    parser.add_argument('--name', help='file name prefix (default: from '
                        'the input)')
    parser.add_argument('--gif-side', type=int, default=256,
                        help='side of the GIF frames in pixels')
    parser.add_argument('--frame-ms', type=int, default=250,
                        help='milliseconds per GIF frame')
    return parser.parse_args(argv)


def load_image(args):
    """RGB uint8 [H, W, 3] and a name for the output files."""
    if args.img is not None:
        if args.img.startswith('sklearn:'):
            from sklearn.datasets import load_sample_image
            name = args.img.split(':', 1)[1]
            return load_sample_image(name), osp.splitext(name)[0]
        if not osp.isfile(args.img):
            raise FileNotFoundError(f'--img: no such file {args.img!r}')
        image = np.asarray(Image.open(args.img).convert('RGB'))
        return image, osp.splitext(osp.basename(args.img))[0]
    from mmengine.config import Config
    from mmengine.registry import init_default_scope
    from mmpretrain.registry import DATASETS

    import randsac_mm.registration  # noqa: F401  (registers the datasets)
    init_default_scope('mmpretrain')
    cfg = Config.fromfile(args.config).train_dataloader.dataset
    cfg.pipeline = []
    dataset = DATASETS.build(cfg)
    if not 0 <= args.index < len(dataset):
        raise IndexError(f'--index must be in [0, {len(dataset)}), got '
                         f'{args.index}')
    info = dataset.get_data_info(args.index)
    if 'img' in info:
        image = info['img']
    else:
        image = np.asarray(Image.open(info['img_path']).convert('RGB'))
    stem = osp.splitext(osp.basename(args.config))[0]
    return image, f'{stem}_{args.index}'


def main(argv=None):
    args = parse_args(argv)
    from randsac_mm.segments import SegmentSpec, token_grid
    from randsac_mm.visualization.layout_figures import (
        hierarchy_figure,
        reveal_gif,
        schemes_figure,
    )
    from randsac_mm.visualization.layout_pictures import square_crop
    grid = token_grid(args.input_size, args.patch_size)
    image, name = load_image(args)
    name = args.name or name
    image = square_crop(image, args.input_size)
    # Draw small inputs (digits, CIFAR) at >= 192 px: nearest upscaling
    # keeps their pixels and leaves room for thin segment boundaries.
    scale = max(1, 192 // args.input_size)
    image = np.kron(image, np.ones((scale, scale, 1), dtype=np.uint8))
    os.makedirs(args.out_dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    # Validate every layout argument before drawing anything.
    SegmentSpec(grid, 'square', square_size=args.square_size,
                hierarchy=tuple(args.hierarchy))
    SegmentSpec(grid, 'blob', num_segments=args.num_segments)
    paths = [osp.join(args.out_dir, f'{name}_{kind}')
             for kind in ('schemes.png', 'hierarchy.png', 'reveal.gif')]
    schemes_figure(image, grid, rng, paths[0], args.square_size,
                   args.num_segments, args.pixel_grid, args.input_size)
    hierarchy_figure(image, grid, rng, paths[1], args.square_size,
                     tuple(args.hierarchy), args.num_segments)
    reveal_gif(image, grid, rng, paths[2], args.square_size,
               tuple(args.hierarchy), args.gif_side, args.frame_ms)
    for path in paths:
        print(f'written {path}')


if __name__ == '__main__':
    main()
