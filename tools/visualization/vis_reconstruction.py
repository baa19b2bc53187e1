"""Pictures of what a RandSAC checkpoint predicts, for your own images.

For each image: a segment layout is sampled as the config's training
pipeline samples it, every segment but the first is predicted from the
earlier ones, and the tool writes

- ``reconstruction.png``: per image (a column each), the original, its
  serialization (a colour per prediction step) and the prediction;
- ``<name>_reveal.gif``: the prediction revealed segment by segment, in
  prediction order.

    python tools/visualization/vis_reconstruction.py CONFIG CHECKPOINT \\
        --img a.jpg b.png [--out-dir DIR] [--seed 0]
    python tools/visualization/vis_reconstruction.py CONFIG CHECKPOINT \\
        --dataset [--num 8]       # images spread over the config's data

At most 16 images (``--img`` files or ``--num``): one column each in
``reconstruction.png``, about 2,700 pixels wide at 16. Images are
centre-cropped to a square and resized to the model's input size. CONFIG
is the pretraining config the checkpoint was trained with. Progress of the
pictures is shown on stderr.
"""
import argparse
import os.path as osp
import sys

import numpy as np

from randsac_mm.cli.args import seed_value
from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import (
    CHECKPOINT,
    CONFIG,
    INPUT_FILE,
    OUTPUT_FOLDER,
)
from randsac_mm.cli.run_tool import run_tool

MAX_IMAGES = 16  # columns of reconstruction.png (~170 px each)


def image_count(text):
    """argparse ``type`` of --num: an int in [1, MAX_IMAGES]."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r} is not an integer')
    if not 1 <= value <= MAX_IMAGES:
        raise argparse.ArgumentTypeError(
            f'must be in [1, {MAX_IMAGES}] (one picture column each), got '
            f'{value}')
    return value


def parse_args(argv=None):
    parser = ToolParser(description=__doc__)
    parser.add_path('config', kind=CONFIG, help='the RandSAC pretraining '
                    'config the checkpoint was trained with')
    parser.add_path('checkpoint', kind=CHECKPOINT,
                    help='a checkpoint of that config')
    source = parser.add_mutually_exclusive_group(required=True)
    parser.add_path('--img', kind=INPUT_FILE, group=source, nargs='+',
                    help=f'image files (at most {MAX_IMAGES})')
    source.add_argument('--dataset', action='store_true',
                        help="--num images of the config's training data")
    parser.add_argument('--num', type=image_count, default=8,
                        help='images taken with --dataset, evenly spaced '
                        f'over it (1 to {MAX_IMAGES})')
    parser.add_path('--out-dir', kind=OUTPUT_FOLDER,
                    default='work_dirs/vis_reconstruction',
                    help='folder of the PNG and the GIFs (made if missing)')
    parser.add_argument('--seed', type=seed_value, default=0,
                        help='seed of the sampled layouts')
    parser.add_argument('--device', default='cpu', choices=['cpu', 'cuda'],
                        help='where the model predicts')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    if args.img and len(args.img) > MAX_IMAGES:
        parser.error(f'argument --img: {len(args.img)} images; at most '
                     f'{MAX_IMAGES} (one picture column each)')
    return args


def read_images(paths):
    """uint8 [H, W, 3] of each file, or UserError naming --img."""
    from PIL import Image, UnidentifiedImageError
    images = []
    for path in paths:
        try:
            images.append(np.asarray(Image.open(path).convert('RGB')))
        except (UnidentifiedImageError, OSError) as e:
            raise UserError(f'--img: {path} is not an image PIL can read '
                            f'({type(e).__name__}); give PNG, JPEG, ... '
                            'files') from e
    return images


def output_names(paths):
    """A distinct name per input image, for its output files: the file's
    stem, with its position among ``--img`` (``x_1``, ``x_2``) where two
    images share a stem (a/x.png, b/x.png): one would overwrite the other.
    """
    stems = [osp.splitext(osp.basename(p))[0] for p in paths]
    shared = {s for s in stems if stems.count(s) > 1}
    names = [f'{s}_{i}' if s in shared else s for i, s in enumerate(stems, 1)]
    if len(set(names)) < len(names):  # a stem that is another's x_1
        names = [f'{s}_{i}' for i, s in enumerate(stems, 1)]
    return names


def main(argv=None):
    args = parse_args(argv)  # and its paths checked: nothing imported yet
    from randsac_mm.cli.device import use_device_or_exit
    use_device_or_exit(args.device, sys.argv[0])
    import randsac_mm.registration  # noqa: F401  (registers)
    from randsac_mm.apis import build_model
    from randsac_mm.cli.config_file import read_config
    from randsac_mm.evaluation import (
        ProgressBars,
        load_weights,
        quiet_mmengine_info,
    )
    from randsac_mm.run.builds import build_segment_generator
    from randsac_mm.visualization.reconstruction import (
        dataset_images,
        write_reconstructions,
    )
    cfg = read_config(args.config)
    generator = build_segment_generator(cfg, 'config', args.config)
    if args.img:
        images = read_images(args.img)
        names = output_names(args.img)
    with quiet_mmengine_info():  # no line per parameter
        model = build_model(cfg)
        load_weights(model, args.checkpoint, 'checkpoint', args.config)
    model = model.to(args.device).eval()
    if not args.img:
        images, names = dataset_images(cfg, args.num)
    written = write_reconstructions(
        model, generator, images, names, args.out_dir, args.seed,
        f'{osp.basename(args.checkpoint)}: every segment but the first '
        'predicted from the earlier ones', progress=ProgressBars())
    print('wrote ' + ', '.join(written))


if __name__ == '__main__':
    run_tool(main)
