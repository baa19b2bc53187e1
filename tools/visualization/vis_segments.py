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

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from randsac_mm.segments import SegmentSpec, make_layout, token_grid  # noqa
from randsac_mm.utils.visualization import (reveal_frames, save_gif,  # noqa
                                            square_crop, token_map)

PALETTE = plt.get_cmap('tab10').colors


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
    import randsac_mm.mmpretrain  # noqa: F401  (registers the datasets)
    from mmengine.config import Config
    from mmengine.registry import init_default_scope
    from mmpretrain.registry import DATASETS
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


def draw_order_panel(ax, image, layout, title):
    grid, side = layout.grid, image.shape[0]
    steps = token_map(layout.token_rank, grid, side)
    ax.imshow(image)
    ax.imshow(steps, cmap='viridis', alpha=0.55,
              vmin=0, vmax=max(layout.num_segments - 1, 1))
    ids = token_map(layout.segment_ids, grid, side)
    boundary = (np.diff(ids, axis=0, prepend=ids[:1]) != 0) | \
        (np.diff(ids, axis=1, prepend=ids[:, :1]) != 0)
    if layout.num_segments < ids.size:
        ax.imshow(np.ma.masked_where(~boundary, boundary), cmap='gray',
                  vmin=0, vmax=1, alpha=0.9)
    if layout.num_segments <= 64:
        for segment, (y, x) in enumerate(centroids(layout, side)):
            ax.text(x, y, str(layout.token_rank[layout.segment_ids ==
                                                segment][0] + 1),
                    color='white', ha='center', va='center',
                    fontsize=7 if layout.num_segments > 16 else 9,
                    fontweight='bold')
    ax.set_title(title, fontsize=9)
    ax.axis('off')


def centroids(layout, side):
    """Pixel centroid (y, x) of every segment: [S, 2]."""
    h, w = layout.grid
    ys, xs = np.divmod(np.arange(h * w), w)
    cell = np.array([side / h, side / w])
    points = (np.stack([ys, xs], 1) + 0.5) * cell
    sums = np.zeros((layout.num_segments, 2))
    np.add.at(sums, layout.segment_ids, points)
    return sums / np.bincount(layout.segment_ids)[:, None]


def schemes_figure(image, args, rng, path):
    grid = token_grid(args.input_size, args.patch_size)
    side = image.shape[0]
    pixel = square_crop(image, args.pixel_grid)
    panels = [
        ('(b) raster pixel', pixel,
         SegmentSpec((args.pixel_grid, ) * 2, 'patch',
                     serialization='raster')),
        ('(c) raster patch', image, SegmentSpec(grid, 'patch',
                                                serialization='raster')),
        ('(d) random patch', image, SegmentSpec(grid, 'patch')),
        (f'(e) random square M={args.square_size}', image,
         SegmentSpec(grid, 'square', square_size=args.square_size)),
        (f'(f) random blob K={args.num_segments}', image,
         SegmentSpec(grid, 'blob', num_segments=args.num_segments)),
    ]
    fig, axes = plt.subplots(1, 6, figsize=(15, 2.9))
    axes[0].imshow(image)
    axes[0].set_title(f'(a) original {args.input_size}px', fontsize=9)
    axes[0].axis('off')
    for ax, (title, img, spec) in zip(axes[1:], panels):
        draw_order_panel(ax, img, make_layout(spec, rng), title)
    fig.suptitle('Prediction order (dark: first, bright: last; numbers: '
                 'step)', fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def partition_colours(layout, side):
    """RGB [side, side, 3]: a hue per top partition, shades per segment."""
    top = layout.groups[-1] if layout.groups else np.zeros_like(
        layout.segment_ids)
    colours = np.zeros((len(layout.segment_ids), 3))
    for partition in np.unique(top):
        members = np.unique(layout.segment_ids[top == partition])
        # Shade by the segment's step within its partition: light first.
        steps = np.argsort(np.argsort(
            [layout.token_rank[layout.segment_ids == m][0] for m in members]))
        base = np.array(PALETTE[partition % len(PALETTE)])
        for member, step in zip(members, steps):
            shade = 1.0 - 0.55 * step / max(len(members) - 1, 1)
            colours[layout.segment_ids == member] = base * shade
    h, w = layout.grid
    return np.kron(colours.reshape(h, w, 3),
                   np.ones((side // h, side // w, 1)))


def hierarchy_figure(image, args, rng, path):
    grid = token_grid(args.input_size, args.patch_size)
    side = image.shape[0]
    specs = [
        (f'square {grid[0] * grid[1] // args.square_size**2} -> '
         f'{"->".join(map(str, args.hierarchy))}',
         SegmentSpec(grid, 'square', square_size=args.square_size,
                     hierarchy=tuple(args.hierarchy))),
        (f'blob {args.num_segments} -> {max(2, args.num_segments // 2)}',
         SegmentSpec(grid, 'blob', num_segments=args.num_segments,
                     hierarchy=(max(2, args.num_segments // 2), ))),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.6))
    axes[0].imshow(image)
    axes[0].set_title('original', fontsize=9)
    for ax, (title, spec) in zip(axes[1:], specs):
        layout = make_layout(spec, rng)
        ax.imshow(image)
        ax.imshow(partition_colours(layout, side), alpha=0.7)
        points = centroids(layout, side)[layout.order]
        for (y0, x0), (y1, x1) in zip(points[:-1], points[1:]):
            ax.annotate('', xy=(x1, y1), xytext=(x0, y0),
                        arrowprops=dict(arrowstyle='->', color='black',
                                        lw=1.3))
        ax.plot(points[0, 1], points[0, 0], 'o', color='white', mec='black')
        ax.set_title(f'{title}: colour = partition, shade = segment',
                     fontsize=8)
    for ax in axes:
        ax.axis('off')
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def reveal_gif(image, args, rng, path):
    grid = token_grid(args.input_size, args.patch_size)
    layout = make_layout(
        SegmentSpec(grid, 'square', square_size=args.square_size,
                    hierarchy=tuple(args.hierarchy)), rng)
    big = square_crop(image, args.gif_side - args.gif_side % grid[0])
    save_gif(reveal_frames(big, layout.token_rank, grid), path,
             args.frame_ms)


def main(argv=None):
    args = parse_args(argv)
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
    schemes_figure(image, args, rng, paths[0])
    hierarchy_figure(image, args, rng, paths[1])
    reveal_gif(image, args, rng, paths[2])
    for path in paths:
        print(f'written {path}')


if __name__ == '__main__':
    main()
