r"""Images per second the two data paths for small images prepare, on one
CPU thread. From the repository root:

    python -m experiments.benchmarks.small_images_speed [--batch-size 512] \
        [--batches 4] [--device cpu|meta] \
        [--out docs/benchmarks/small_images_loader_cpu.json]

- **per sample**: the Fashion-MNIST base's training pipeline
  (``configs/_base_/datasets/fashion-mnist_randsac.py``: ``PerSampleSeed``,
  ``RandomResizedCrop`` with Pillow, ``RandomFlip``, the layout,
  ``PackInputs``) one image at a time, then ``default_collate`` and the
  base's ``HostSamplesDataPreprocessor``;
- **batch**: ``InMemoryBatchImages`` with that pipeline's crop, flip and
  layout, whose batch draws (keys, boxes, flips, layouts) run at once,
  then ``default_collate`` and ``BatchCropDataPreprocessor`` (the crop,
  here on the CPU).

Each path's time is split where a run splits it: the loader's side
(workers, in parallel) and the model's side (the preprocessor, on the
training device: ``--device``). Images: MNIST5k's 4,000 training digits
at 32 px, real images that install with the package (a 32 px image costs
the same to crop whatever it shows), for the layouts of the paper-scale
plan's rows. The fastest of ``--rounds`` passes counts.

``--device meta`` runs the model's side on PyTorch's meta device, where an
operator computes no values: what is left is the host's own work for a
batch (Python, the samples' casting, dispatching the operators), which the
main process pays on a GPU before any kernel runs, and which a GPU does
not hide when the step itself is bound by the host (the paper-scale row's
is, docs/performance.md). Meta operators dispatch through Python, slower
than a GPU's launches: a path's count of operators weighs more there.
"""
import argparse
import time

import numpy as np

from randsac_mm.cli.args import HelpFormatter, positive_int
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.run_tool import run_tool

from ..benchmark_io import code_commit, machine_info, write_json

PROG = 'python -m experiments.benchmarks.small_images_speed'
BASE = 'configs/_base_/datasets/fashion-mnist_randsac.py'
# The plan's layouts on the 8x8 grid (patch-raster and MAE draw less).
LAYOUTS = {
    'square 16 -> 4': dict(segment='square', square_size=2,
                           hierarchy=(4, )),
    'patch-random': dict(segment='patch'),
    'blob K=7': dict(segment='blob', num_segments=7),
    'blob K=7 shuffled': dict(segment='blob', num_segments=7,
                              coherent=False),
    'blob 11 -> 5': dict(segment='blob', num_segments=11, hierarchy=(5, )),
}


def _step(pipeline, kind):
    return next(dict(t) for t in pipeline if t['type'] == kind)


def build_paths(layout, device='cpu'):
    """The two paths' (loader side, model side) for one layout, from the
    Fashion-MNIST base, over MNIST5k's training digits; the model side on
    ``device``."""
    from mmengine.config import Config
    from mmengine.registry import DefaultScope
    from mmpretrain.registry import DATASETS, MODELS

    from randsac_mm.segments.config import with_segments
    base = Config.fromfile(BASE)
    pipeline = with_segments(base.train_pipeline, **layout)
    crop, flip = _step(pipeline, 'RandomResizedCrop'), _step(pipeline,
                                                             'RandomFlip')
    grid = _step(pipeline, 'RandSACSegmentGenerator')
    for step in (crop, grid):
        step.pop('type')
    preprocessor = dict(base.data_preprocessor)
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        per_sample = DATASETS.build(dict(type='MNIST5k', split='train',
                                         pipeline=pipeline))
        batch = DATASETS.build(dict(
            type='InMemoryBatchImages',
            dataset=dict(type='MNIST5k', split='train'),
            crop=crop, flip_prob=flip['prob'], layout=grid))
        plain = MODELS.build(preprocessor)
        cropping = MODELS.build(dict(preprocessor,
                                     type='BatchCropDataPreprocessor'))
    return dict(
        per_sample=(lambda idx: [per_sample[i] for i in idx],
                    plain.to(device)),
        batch=(batch.__getitems__, cropping.to(device)))


def time_path(load, preprocess, batches, rounds):
    """Seconds per batch of the loader's side and of the model's side
    (the fastest round of each)."""
    from mmengine.dataset import default_collate
    best = None
    for _ in range(rounds):
        spent = np.zeros(2)
        for indices in batches:
            start = time.perf_counter()
            data = default_collate(load(indices))
            middle = time.perf_counter()
            preprocess(data, True)
            spent += (middle - start, time.perf_counter() - middle)
        best = spent if best is None else np.minimum(best, spent)
    return best / len(batches)


def main(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--batch-size', type=positive_int, default=512,
                        help='images a batch (the recipe: 512)')
    parser.add_argument('--batches', type=positive_int, default=4,
                        help='batches a round')
    parser.add_argument('--rounds', type=positive_int, default=3,
                        help='passes; the fastest counts')
    parser.add_argument('--device', choices=('cpu', 'meta'), default='cpu',
                        help="the model's side: on the CPU, or on the meta "
                        "device (the host's own work alone, no arithmetic)")
    parser.add_argument('--out', help='JSON file; None: not written')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    import torch

    import randsac_mm.registration  # noqa: F401  (registers)
    torch.set_num_threads(1)  # one loader worker, one thread
    rng = np.random.default_rng(0)
    batches = [rng.choice(4000, args.batch_size, replace=False)
               for _ in range(args.batches)]
    rows = {}
    for name, layout in LAYOUTS.items():
        row = {}
        for path, (load, preprocess) in build_paths(
                layout, args.device).items():
            loader, model = time_path(load, preprocess, batches,
                                      args.rounds)
            row[path] = dict(
                loader_images_per_s=args.batch_size / loader,
                model_images_per_s=args.batch_size / model,
                images_per_s=args.batch_size / (loader + model))
        row['speedup'] = row['batch']['images_per_s'] / \
            row['per_sample']['images_per_s']
        rows[name] = row
        one, many = row['per_sample'], row['batch']
        print(f"{name:18s} per sample {one['images_per_s']:7.0f} images/s "
              f"(loader {one['loader_images_per_s']:.0f}), batch "
              f"{many['images_per_s']:7.0f} (loader "
              f"{many['loader_images_per_s']:.0f}, crop on "
              f"{args.device} "
              f"{many['model_images_per_s']:.0f}): {row['speedup']:.1f}x",
              flush=True)
    if args.out:
        write_json(args.out, dict(
            layouts=rows, batch_size=args.batch_size, batches=args.batches,
            rounds=args.rounds, model_device=args.device,
            images='MNIST5k training digits, 32 px',
            machine=machine_info(), commit=code_commit()))


if __name__ == '__main__':
    run_tool(main, prog=PROG)
