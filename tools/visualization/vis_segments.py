"""Pictures of RandSAC segment layouts for one image.

Writes three files to ``--out-dir``:
  - ``<name>_schemes.png``: the paper's Figure 2 panels: original, raster
    pixel, raster patch, random patch, random square, random blob. Colour
    is the prediction step (dark = early, bright = late).
  - ``<name>_hierarchy.png``: the Figure 3 hierarchy: a colour per
    partition, shades for its segments, arrows along the prediction order.
  - ``<name>_reveal.gif``: the image revealed segment by segment in
    prediction order (like the paper's supplementary video).

With a RandSAC pretraining config as ``--config``, the pictures are of
that config's own layout: its input size, patch size, scheme and options
(its ``RandSACSegmentGenerator``) replace the options' defaults, its
layout takes the place of the panel of its scheme (labelled "(config)"),
and the GIF reveals it: the same draw (one draw of each layout, from
``--seed``, is shared by the three pictures; without a config the GIF
reveals the hierarchy figure's square layout). An option that contradicts
the config is refused. With a data config (no layout step), the options
give the layout.

Examples:
    # a photo (or sklearn's bundled sample photo with --img sklearn:china.jpg)
    python tools/visualization/vis_segments.py --img photo.jpg
    # a pretraining config's own layout on one of its training images
    python tools/visualization/vis_segments.py \\
        --config configs/demo/randsac_vit-mini-p4_square-16to4_digits.py
    # a sample of a data config's training set (the embedded digits here)
    python tools/visualization/vis_segments.py \\
        --config configs/_base_/datasets/digits.py --index 7 \\
        --input-size 32 --patch-size 4 --square-size 2 --num-segments 7
"""
import os
import os.path as osp

import numpy as np

from randsac_mm.cli.args import non_negative_int, positive_int, seed_value
from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CONFIG, INPUT_FILE, OUTPUT_FOLDER
from randsac_mm.cli.run_tool import run_tool

SKLEARN_IMAGES = ('china.jpg', 'flower.jpg')
# The layout options' values when neither they nor the config give them.
DEFAULTS = dict(input_size=192, patch_size=16, square_size=3,
                num_segments=11, hierarchy=[4])



def parse_args(argv=None):
    parser = ToolParser(description=__doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    parser.add_path(
        '--img', kind=INPUT_FILE, group=source,
        not_a_path=lambda value: value.startswith('sklearn:'),
        help='image file, or sklearn:china.jpg / sklearn:flower.jpg '
        "for scikit-learn's bundled sample photos")
    parser.add_path('--config', kind=CONFIG, group=source,
                    help='a RandSAC pretraining config (its layout and a '
                    'training image) or a data config (a training image)')
    parser.add_argument('--index', type=non_negative_int, default=0,
                        help='sample index in the --config dataset')
    parser.add_argument('--input-size', type=positive_int,
                        help='side the image is resized to (None: the '
                        f"config's, else {DEFAULTS['input_size']})")
    parser.add_argument('--patch-size', type=positive_int,
                        help='patch side P in pixels (None: the config\'s, '
                        f"else {DEFAULTS['patch_size']})")
    parser.add_argument('--square-size', type=positive_int,
                        help='square side M in tokens (None: a square '
                        f"config's, else {DEFAULTS['square_size']} or the "
                        'nearest that divides the token grid)')
    parser.add_argument('--num-segments', type=positive_int,
                        help='blob count K (None: a blob config\'s, else '
                        f"{DEFAULTS['num_segments']}, at most half the "
                        'tokens)')
    parser.add_argument(
        '--hierarchy', type=positive_int, nargs='*',
        help='coarser group counts of the square hierarchy figure and GIF '
        '(None: a square config\'s, else 4, the paper\'s 16 -> 4 at M=3 on '
        '12x12 tokens, or none where 4 does not fit; give it with no value '
        'for none)')
    parser.add_argument('--pixel-grid', type=positive_int, default=32,
                        help='side of the downsampled image of the raster '
                        'pixel panel')
    parser.add_argument('--seed', type=seed_value, default=0,
                        help='layout seed')
    parser.add_path('--out-dir', kind=OUTPUT_FOLDER,
                    default='work_dirs/vis_segments',
                    help='where the PNGs and the GIF go (made if missing)')
    parser.add_argument('--name', help='file name prefix (None: from '
                        'the input)')
    parser.add_argument('--gif-side', type=positive_int, default=256,
                        help='side of the GIF frames in pixels (at least the '
                        'token grid\'s side)')
    parser.add_argument('--frame-ms', type=positive_int, default=250,
                        help='milliseconds per GIF frame')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    if args.img is not None and args.img.startswith('sklearn:') and \
            args.img.split(':', 1)[1] not in SKLEARN_IMAGES:
        parser.error(f'argument --img: scikit-learn has '
                     f'{", ".join(SKLEARN_IMAGES)}, not '
                     f"{args.img.split(':', 1)[1]!r}")
    if args.name is not None and (not args.name or osp.sep in args.name):
        parser.error('argument --name: a file name prefix, without '
                     f'{osp.sep!r}, got {args.name!r}')
    return args


def config_layout(args):
    """The config's layout step (RandSACSegmentGenerator) or None, and the
    layout options resolved: given, else the config's, else DEFAULTS."""
    given = dict(input_size=args.input_size, patch_size=args.patch_size,
                 square_size=args.square_size,
                 num_segments=args.num_segments, hierarchy=args.hierarchy)
    generator = None
    if args.config is not None:
        from randsac_mm.cli.config_file import read_config
        from randsac_mm.datasets import RandSACSegmentGenerator
        cfg = read_config(args.config, '--config')
        if any(step.get('type') == 'RandSACSegmentGenerator'
               for step in cfg.get('train_dataloader', {}).get(
                   'dataset', {}).get('pipeline', [])):
            generator = RandSACSegmentGenerator.from_config(cfg)
    resolved = {}
    if generator is not None:
        size = generator.input_size
        if isinstance(size, (tuple, list)):
            if size[0] != size[1]:
                raise UserError(
                    f'--config: its input_size is {tuple(size)}; this tool '
                    'draws square inputs')
            size = size[0]
        spec = generator.spec
        own = dict(input_size=size, patch_size=generator.patch_size)
        if spec.segment == 'square':
            own.update(square_size=spec.square_size,
                       hierarchy=list(spec.hierarchy))
        if spec.segment == 'blob':
            own.update(num_segments=spec.num_segments)
        for key, value in own.items():
            if given[key] is not None and given[key] != value:
                raise UserError(
                    f"--{key.replace('_', '-')}: {given[key]}, but the "
                    f'layout of {osp.basename(args.config)} has '
                    f'{key}={value}; leave it out to draw the config\'s '
                    'layout')
        resolved.update(own)
    for key, value in given.items():
        resolved.setdefault(key, DEFAULTS[key] if value is None else value)
    return generator, resolved


def fit_defaults(layout, grid, args, SegmentSpec):
    """A config's grid may not take the defaults of the other schemes'
    panels (M=3 on 8x8 tokens): those not given fall back to values that
    fit it (M: 3, 2, 4 or 1; the hierarchy 4 or none; K at most half the
    tokens)."""
    def fits(**options):
        try:
            SegmentSpec(grid, **options)
            return True
        except ValueError:
            return False

    square = dict(square_size=layout['square_size'],
                  hierarchy=tuple(layout['hierarchy']))
    if args.square_size is None and not fits(segment='square', **square):
        sizes = [m for m in (3, 2, 4, 1) if fits(segment='square',
                                                 square_size=m)]
        if sizes:
            layout['square_size'] = sizes[0]
    if args.hierarchy is None and not fits(
            segment='square', square_size=layout['square_size'],
            hierarchy=tuple(layout['hierarchy'])):
        layout['hierarchy'] = []
    if args.num_segments is None and not fits(
            segment='blob', num_segments=layout['num_segments']):
        layout['num_segments'] = max(2, grid[0] * grid[1] // 2)


def load_image(args):
    """RGB uint8 [H, W, 3] and a name for the output files."""
    from PIL import Image, UnidentifiedImageError
    if args.img is not None:
        if args.img.startswith('sklearn:'):
            from sklearn.datasets import load_sample_image
            name = args.img.split(':', 1)[1]
            return load_sample_image(name), osp.splitext(name)[0]
        try:
            image = np.asarray(Image.open(args.img).convert('RGB'))
        except (UnidentifiedImageError, OSError) as e:
            raise UserError(f'--img: {args.img} is not an image PIL can '
                            f'read ({type(e).__name__}); give a PNG, JPEG, '
                            '... file') from e
        return image, osp.splitext(osp.basename(args.img))[0]
    from mmengine.registry import init_default_scope
    from mmpretrain.registry import DATASETS

    import randsac_mm.registration  # noqa: F401  (registers the datasets)
    from randsac_mm.cli.config_file import read_config
    init_default_scope('mmpretrain')
    cfg = read_config(args.config, '--config')
    if not cfg.get('train_dataloader'):
        raise UserError(f'--config: {osp.basename(args.config)} has no '
                        'train_dataloader to take an image from')
    cfg = cfg.train_dataloader.dataset
    cfg.pipeline = []
    dataset = DATASETS.build(cfg)
    if not args.index < len(dataset):
        raise UserError(f'--index: {args.index}, but the dataset of '
                        f'{osp.basename(args.config)} has {len(dataset)} '
                        f'images; give 0 to {len(dataset) - 1}')
    info = dataset.get_data_info(args.index)
    if 'img' in info:
        image = np.asarray(info['img'])
    else:
        image = np.asarray(Image.open(info['img_path']).convert('RGB'))
    stem = osp.splitext(osp.basename(args.config))[0]
    return image, f'{stem}_{args.index}'


def main(argv=None):
    args = parse_args(argv)
    import randsac_mm.registration  # noqa: F401  (registers)
    from randsac_mm.segments import SegmentSpec, token_grid
    from randsac_mm.visualization.layout_figures import (
        LayoutDraws,
        hierarchy_figure,
        reveal_gif,
        schemes_figure,
        spec_title,
    )
    from randsac_mm.visualization.layout_pictures import square_crop
    generator, layout = config_layout(args)
    size = layout['input_size']
    # Validate every layout argument before drawing anything.
    try:
        grid = token_grid(size, layout['patch_size'])
    except ValueError as e:
        raise UserError(f'--input-size/--patch-size: {e}') from e
    fit_defaults(layout, grid, args, SegmentSpec)
    for names, make in (
            ('--square-size/--hierarchy', lambda: SegmentSpec(
                grid, 'square', square_size=layout['square_size'],
                hierarchy=tuple(layout['hierarchy']))),
            ('--num-segments', lambda: SegmentSpec(
                grid, 'blob', num_segments=layout['num_segments']))):
        try:
            make()
        except ValueError as e:
            raise UserError(f'{names}: {e}') from e
    if args.gif_side < grid[0]:
        raise UserError(f'--gif-side: {args.gif_side} px, less than the '
                        f'{grid[0]} tokens of a side; give at least '
                        f'{grid[0]}')
    image, name = load_image(args)
    name = args.name or name
    own = generator.spec if generator is not None else None
    print(f"layout: {size} px input, {layout['patch_size']} px patches "
          f'({grid[0]}x{grid[1]} tokens)' +
          (f'; {osp.basename(args.config)}: {spec_title(own)}'
           if own is not None else ''))
    image = square_crop(image, size)
    # Draw small inputs (digits, CIFAR) at >= 192 px: nearest upscaling
    # keeps their pixels and leaves room for thin segment boundaries.
    scale = max(1, 192 // size)
    image = np.kron(image, np.ones((scale, scale, 1), dtype=np.uint8))
    os.makedirs(args.out_dir, exist_ok=True)
    # One draw of each layout for all three pictures.
    draws = LayoutDraws(np.random.default_rng(args.seed))
    paths = [osp.join(args.out_dir, f'{name}_{kind}')
             for kind in ('schemes.png', 'hierarchy.png', 'reveal.gif')]
    schemes_figure(image, grid, draws, paths[0], layout['square_size'],
                   layout['num_segments'], args.pixel_grid, size,
                   layout=own)
    hierarchy_figure(image, grid, draws, paths[1], layout['square_size'],
                     tuple(layout['hierarchy']), layout['num_segments'],
                     layout=own)
    reveal_gif(image, grid, draws, paths[2], layout['square_size'],
               tuple(layout['hierarchy']), args.gif_side, args.frame_ms,
               layout=own)
    for path in paths:
        print(f'written {path}')


if __name__ == '__main__':
    run_tool(main)
