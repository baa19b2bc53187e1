"""What the paper-scale study compares: the CIFAR rows at their scale,
the paper's orderings among them, its presets, and the order of its runs."""
import os.path as osp

from randsac_mm.evaluation import accuracy_readouts

from .. import REPO_ROOT
from .. import small_scale as small
from ..small_scale import StudyPlan

PROG = 'python -m experiments.paper_scale'
CONFIGS = osp.join(REPO_ROOT, 'configs', 'paper_scale')
EVAL_DATA = small.EVAL_DATA
# The GPU window's measured speeds (gpu_window.sh's speed and fit parts).
SPEED_FILES = tuple(
    osp.join(REPO_ROOT, 'docs', 'benchmarks', 'gpu', name)
    for name in ('paper_scale_speed.json', 'paper_scale_fit.json'))
# The goal on one H100, for estimates before any measurement.
GOAL_IMAGES_PER_S = 30000
FASHION_MNIST_TRAIN = 60000


def _row(name):
    """The config file of a row of configs/paper_scale."""
    return f'{name}_1xb512-200e_fashion-mnist.py'


# Each variant's config; its paper row and the paper's orderings are the
# small-scale study's (the same rows of the same tables).
CONFIG_NAMES = {
    'patch-raster': 'randsac_vit-tiny-p4_patch-raster',
    'patch-random': 'randsac_vit-tiny-p4_patch-random',
    'square-m2': 'randsac_vit-tiny-p4_square-m2',
    'blob-k7': 'randsac_vit-tiny-p4_blob-k7',
    'blob-k7-shuffle': 'randsac_vit-tiny-p4_blob-k7-shuffle',
    'transformer': 'randsac_vit-tiny-p4_blob-11to5_transformer',
    'transformer-skip': 'randsac_vit-tiny-p4_blob-11to5_transformer-skip',
    'random': None,
    'square-16to4': 'randsac_vit-tiny-p4_square-m2-16to4',
    'two-stream': 'randsac_vit-tiny-p4_blob-11to5_two-stream',
    'mae': 'mae_vit-tiny-p4',
}
# The key orderings first (random over raster, squares over patches, blobs
# over patches, coherent over shuffled, skip over plain), then the rest.
ORDERING_PAIRS = [
    ('patch-raster', 'patch-random'), ('patch-random', 'square-m2'),
    ('patch-random', 'blob-k7'), ('blob-k7-shuffle', 'blob-k7'),
    ('transformer', 'transformer-skip'), ('random', 'square-m2'),
    ('square-m2', 'square-16to4'), ('two-stream', 'transformer'),
    ('mae', 'transformer-skip')]
PAPER_SCALE = StudyPlan(
    'paper-scale',
    variants={name: (config and _row(config), small.VARIANTS[name][1])
              for name, config in CONFIG_NAMES.items()},
    random_base=_row(CONFIG_NAMES['square-m2']),
    orderings=[next(o for o in small.ORDERINGS if o[:2] == pair)
               for pair in ORDERING_PAIRS],
    # Fashion-MNIST's standard files, wherever a machine keeps them.
    records_data_root=False)
# The variants of the key orderings (the first five), run first.
KEY_VARIANTS = list(dict.fromkeys(
    name for worse, better, _ in PAPER_SCALE.orderings[:5]
    for name in (worse, better)))
# The study on a GPU: the paper's readouts on all images, compiled, bf16.
DEFAULTS = dict(seeds=[0, 1, 2], readouts=list(accuracy_readouts()),
                probe_images=FASHION_MNIST_TRAIN, device='cuda',
                compile=True, work_dir='work_dirs/paper_scale',
                records='docs/benchmarks/paper_scale')
# What the test suite runs on the CPU: 3 variants, 1 seed, 1 epoch on 256
# images, the loader in the main process.
QUICK = dict(variants=['random', 'patch-raster', 'patch-random'], seeds=[0],
             epochs=1, train_images=256, test_images=256, probe_images=256,
             probe_epochs=5, device='cpu', compile=False, workers=0,
             work_dir='work_dirs/paper_scale_quick')
RUN_FILES = ('pretrain.json', 'eval_epoch*.json')
# Minutes of a run's readouts until one is recorded: features of 70,000
# images and the 90-epoch probes on the GPU (an assumption, on the safe
# side, so that a budget does not start a run it cannot finish).
ASSUMED_READOUT_MINUTES = 3.0


def plan_runs(settings):
    """The study's runs as (variant, seed), in the order they are run: the
    key orderings' variants at every seed (seed-major), then the others."""
    key = [v for v in KEY_VARIANTS if v in settings.variants]
    rest = [v for v in settings.variants if v not in key]
    return [(v, s) for group in (key, rest) for s in settings.seeds
            for v in group]


