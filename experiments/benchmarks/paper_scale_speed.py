r"""Training speed of a paper-scale row (ViT-T/4 at 32 px) on both data
paths for small images. From the repository root:

    python -m experiments.benchmarks.paper_scale_speed [--device cpu|cuda] \
        [--config configs/paper_scale/<row>.py] [--batch-size 512] \
        [--workers 4] [--steps 6] [--compile] \
        [--out docs/benchmarks/small_images_cpu.json]

The row's whole training step (data preprocessing, forward, backward,
AdamW; bf16 autocast on CUDA as the config says) is timed with the row's
real data loader on each path:

- ``on_device``: the row as it is (``InMemoryBatchImages``: each batch's
  crops, flips and layouts drawn at once in a loader worker, the crop run
  by ``BatchCropDataPreprocessor`` on the training device);
- ``per_sample``: the same model, optimizer, batch and layout on the
  per-sample pipeline of ``configs/_base_/datasets/fashion-mnist_randsac.py``
  (``PerSampleSeed``, Pillow's ``RandomResizedCrop``, ``RandomFlip``, the
  layout step, ``PackInputs``; one image at a time in the workers).

Each row of the JSON: ``images_per_s`` (over the timed steps, waits
included), ``data_wait_share`` (the share of that time spent waiting for
the next batch), ``peak_memory`` (MiB: on CUDA the allocator's peak; on a
CPU the main process's peak resident set, sampled every millisecond;
workers not counted), ``batch``, ``mfu`` (None without a known peak: the
model's FLOPs per image from ``randsac_mm.analysis.flops``, x 3 for the
backward, times images/s, over ``--peak-tflops`` or the GPU's bf16 peak).
The first ``--warmup`` steps (loader start, compilation) are not timed.

``--processes 2 4`` asks how many runs share one GPU: for each count, that
many copies of the timing run at once, each its own process with its own
model and loader on the same device, and start timing together (each
waits, after its warmup, until all are ready; a copy that fails stops
them all). Their row: the images they trained together over the wall time
from the first start to the last end (``images_per_s``), each process's
own rate (``per_process``), their peak memories summed, and
``processes``. A count of 1 is the timing itself. The JSON is written
after each row.

Images: Fashion-MNIST's IDX files with ``--data-root``; else MNIST5k's
4,000 training digits at 32 px, real images that install with the package
(a 32 px image costs the same to crop whatever it shows).
"""
import argparse
import json
import os
import os.path as osp
import subprocess
import sys
import tempfile
import time

from randsac_mm.cli.args import (
    HelpFormatter,
    non_negative_int,
    positive_float,
    positive_int,
)
from randsac_mm.cli.device import DEVICES, NoUsableCuda, use_device
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.run_tool import run_tool

from .. import REPO_ROOT
from ..benchmark_io import code_commit, machine_info, write_json

PROG = 'python -m experiments.benchmarks.paper_scale_speed'
ROW = ('configs/paper_scale/'
       'randsac_vit-tiny-p4_square-m2-16to4_1xb512-200e_fashion-mnist.py')
PER_SAMPLE_BASE = 'configs/_base_/datasets/fashion-mnist_randsac.py'
PATHS = ('on_device', 'per_sample')


def path_config(row, path, workers, batch_size, data_root=None):
    """The row's config on ``path`` (one of ``PATHS``), its loader with
    ``workers`` and ``batch_size``, over Fashion-MNIST at ``data_root``
    or, without, MNIST5k's training digits."""
    from mmengine.config import Config

    from randsac_mm.segments.config import with_segments
    cfg = Config.fromfile(osp.join(REPO_ROOT, row))
    held = cfg.train_dataloader.dataset
    if held.type != 'InMemoryBatchImages':
        raise ValueError(f'--config: {row} is not on the batch data path '
                         '(its data set is not InMemoryBatchImages)')
    images = dict(held.dataset, data_root=data_root) if data_root else \
        dict(type='MNIST5k', split='train')
    loader = cfg.train_dataloader
    loader.update(batch_size=batch_size, num_workers=workers,
                  persistent_workers=workers > 0)
    if path == 'on_device':
        loader.dataset = dict(held, dataset=images)
        return cfg
    base = Config.fromfile(osp.join(REPO_ROOT, PER_SAMPLE_BASE))
    pipeline = base.train_pipeline
    if held.layout is None:  # MAE: no layout step
        pipeline = [step for step in pipeline
                    if step['type'] != 'RandSACSegmentGenerator']
    else:
        pipeline = with_segments(pipeline, **held.layout)
    for step in pipeline:  # the row's crop and flip, not the base's
        if step['type'] == 'RandomResizedCrop':
            step.update(held.crop)
        if step['type'] == 'RandomFlip':
            step['prob'] = held.flip_prob
    loader.dataset = dict(images, pipeline=pipeline)
    cfg.data_preprocessor = dict(cfg.data_preprocessor,
                                 type=base.data_preprocessor.type)
    return cfg


def flops_per_image(cfg):
    """Training FLOPs of one image (forward x 3), or None for a model the
    counter does not handle (MAE)."""
    from randsac_mm.analysis.flops import count
    from randsac_mm.datasets import RandSACSegmentGenerator
    from randsac_mm.segments import make_layout
    layout = cfg.train_dataloader.dataset.get('layout')
    if layout is None or cfg.model.type != 'RandSAC':
        return None
    import numpy as np
    spec = RandSACSegmentGenerator(**layout).spec
    rank = make_layout(spec, np.random.default_rng(0)).token_rank
    macs, _, _ = count(cfg.model, rank[None])
    return 2 * 3 * macs


def time_steps(cfg, device, steps, warmup, compiled, ready=None):
    """Times ``steps`` training steps after ``warmup``; returns (images
    they trained on, their seconds, the seconds spent waiting for data,
    peak memory MiB, the wall clock's start and end of the timing).
    ``ready``: called after the warmup, returns when timing may start."""
    import torch
    from mmengine.optim import build_optim_wrapper
    from mmengine.runner import Runner

    from randsac_mm.apis import build_model
    from randsac_mm.engine.hooks.compile_loss_hook import compile_loss

    from .throughput import RssSampler
    model = build_model(cfg, None, seed=0).to(device)
    model.train()
    if compiled:
        compile_loss(model)
    optim = build_optim_wrapper(model, cfg.optim_wrapper)
    # Pinned host memory only where a GPU copies from it.
    loader = Runner.build_dataloader(
        dict(cfg.train_dataloader, pin_memory=device == 'cuda'), seed=0)

    def batches():
        while True:
            yield from loader

    def sync():
        if device == 'cuda':
            torch.cuda.synchronize()

    feed = batches()
    for _ in range(warmup):
        model.train_step(next(feed), optim)
    sync()
    if ready is not None:
        ready()
    if device == 'cuda':
        torch.cuda.reset_peak_memory_stats()
    waited = spent = 0.0
    images = 0
    began = time.time()
    with RssSampler() as rss:
        for _ in range(steps):
            start = time.perf_counter()
            data = next(feed)
            got = time.perf_counter()
            model.train_step(data, optim)
            sync()
            waited += got - start
            spent += time.perf_counter() - start
            images += len(data['inputs'])  # an epoch's last batch: fewer
    ended = time.time()
    peak = torch.cuda.max_memory_allocated() / 2**20 if device == 'cuda' \
        else rss.peak
    return images, spent, waited, peak, began, ended


# A copy started by --processes: the folder where it and its siblings say
# they are ready, and how many they are.
BARRIER = 'RANDSAC_SPEED_BARRIER'


def barrier(path):
    """``ready()`` for ``time_steps`` in a copy that --processes started
    (None in a lone run): says this copy is ready for ``path``, then waits
    until every copy is."""
    if BARRIER not in os.environ:
        return None
    folder, count = os.environ[BARRIER].rsplit(':', 1)

    def ready():
        open(osp.join(folder, f'{path}.{os.getpid()}'), 'w').close()
        while sum(name.startswith(path + '.')
                  for name in os.listdir(folder)) < int(count):
            time.sleep(0.05)
    return ready


def run_copies(argv, count, path):
    """Runs ``count`` copies of this tool with ``argv`` on ``path`` at once
    (their timings started together); returns their JSON results."""
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, **{BARRIER: f'{folder}:{count}'})
        outs = [osp.join(folder, f'copy{i}.json') for i in range(count)]
        copies = [subprocess.Popen(
            [sys.executable, '-m', 'experiments.benchmarks.paper_scale_speed',
             *argv, '--paths', path, '--processes', '1', '--out', out],
            env=env, cwd=REPO_ROOT) for out in outs]
        # A copy that fails never reaches the barrier, where the others
        # would wait for it: stop them all at the first failure.
        while None in (codes := [copy.poll() for copy in copies]):
            if any(codes):
                break
            time.sleep(0.2)
        if any(codes):
            for copy in copies:
                copy.kill()
            codes = [copy.wait() for copy in copies]
            raise RuntimeError(f'--processes {count}: a copy failed (exit '
                               f'codes {codes}; the others stopped); its '
                               'output is above')
        results = []
        for out in outs:
            with open(out) as f:
                results.append(json.load(f))
        return results


def copies_row(results, count):
    """One row of ``count`` copies' results: their images over the wall
    time from the first start to the last end, their peak memories summed
    (what they need of one device together), the largest data wait."""
    rows = [r['rows'][0] for r in results]
    images = sum(r['images'] for r in rows)
    began = min(r['began'] for r in rows)
    ended = max(r['ended'] for r in rows)
    wall = ended - began
    return dict(rows[0], processes=count, images=images,
                images_per_s=images / wall, seconds=wall, began=began,
                ended=ended, step_s=sum(r['step_s'] for r in rows) / count,
                per_process=[r['images_per_s'] for r in rows],
                data_wait_share=max(r['data_wait_share'] for r in rows),
                peak_memory=sum(r['peak_memory'] for r in rows),
                mfu=None if rows[0]['mfu'] is None else  # FLOPs ~ images
                rows[0]['mfu'] * images / wall / rows[0]['images_per_s'])


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--config', default=ROW,
                        help='a paper-scale row (configs/paper_scale/)')
    parser.add_argument('--device', choices=DEVICES, default='cpu',
                        help="cpu (the config's precision='auto': bf16 "
                        'where the CPU has bf16 instructions) or cuda (bf16 '
                        'autocast; exit code 2 if CUDA cannot be used)')
    parser.add_argument('--batch-size', type=positive_int,
                        help="images a step; None: the config's 512")
    parser.add_argument('--workers', type=non_negative_int,
                        help="loader worker processes; None: the config's")
    parser.add_argument('--steps', type=positive_int, default=6,
                        help='timed steps a path')
    parser.add_argument('--warmup', type=non_negative_int, default=2,
                        help='untimed steps first (loader start, compile)')
    parser.add_argument('--compile', action='store_true',
                        help="run the model's loss compiled (as "
                        'tools/train.py --compile)')
    parser.add_argument('--peak-tflops', type=positive_float,
                        help="the device's peak for MFU; None: a known "
                        "GPU's bf16 peak, else no MFU")
    parser.add_argument('--data-root',
                        help='Fashion-MNIST IDX folder; None: MNIST5k')
    parser.add_argument('--paths', nargs='+', choices=PATHS,
                        default=list(PATHS), help='the data paths timed')
    parser.add_argument('--processes', nargs='+', type=positive_int,
                        default=[1], metavar='N',
                        help='for each N, N copies timed at once on the '
                        'device (each its own process, model and loader): '
                        'how many runs share a GPU')
    parser.add_argument('--out', help='JSON file; None: not written')
    add_debug_arg(parser)
    return parser, parser.parse_args(argv)


def main(argv=None):
    parser, args = parse_args(argv)
    try:
        use_device(args.device)
    except NoUsableCuda as e:
        parser.exit(2, f'{parser.prog}: error: argument --device: {e}\n')
    from mmengine.registry import init_default_scope

    import randsac_mm.registration  # noqa: F401  (registers)

    from .gpu_acceptance import peak_tflops
    init_default_scope('mmpretrain')  # the configs' scope
    machine = machine_info()
    peak = peak_tflops(args, machine)  # --peak-tflops, else a known GPU's
    from mmengine.config import Config
    loader = Config.fromfile(osp.join(REPO_ROOT, args.config)) \
        .train_dataloader
    batch = args.batch_size or loader.batch_size
    workers = loader.num_workers if args.workers is None else args.workers
    # What the JSON says besides its rows, the same after each row.
    record = dict(
        config=args.config, device=args.device,
        train_flops_per_image=flops_per_image(
            path_config(args.config, 'on_device', 0, batch)),
        compiled=args.compile, steps=args.steps, warmup=args.warmup,
        peak_tflops=peak,
        images=f'Fashion-MNIST at {args.data_root}' if args.data_root
        else 'MNIST5k training digits, 32 px',
        machine=machine, commit=code_commit())
    rows = []
    for count in args.processes:
        for path in args.paths:
            if count == 1:
                cfg = path_config(args.config, path, workers, batch,
                                  args.data_root)
                images, spent, waited, memory, began, ended = time_steps(
                    cfg, args.device, args.steps, args.warmup, args.compile,
                    ready=barrier(path))
                rate = images / spent
                flops = flops_per_image(cfg)
                row = dict(path=path, processes=1, images_per_s=rate,
                           data_wait_share=waited / spent,
                           peak_memory=memory, batch=batch, workers=workers,
                           step_s=spent / args.steps, images=images,
                           began=began, ended=ended,
                           mfu=flops * rate / (peak * 1e12)
                           if flops and peak else None)
            else:
                row = copies_row(run_copies(copy_argv(args, batch, workers),
                                            count, path), count)
            rows.append(row)
            print_row(row)
            if args.out:  # after each row: a stopped run keeps the others
                write_json(args.out, dict(record, rows=rows))
    alone = {r['path']: r['images_per_s'] for r in rows
             if r['processes'] == 1}
    if len(alone) == 2:
        print(f"on_device / per_sample: "
              f"{alone['on_device'] / alone['per_sample']:.2f}x")


def copy_argv(args, batch, workers):
    """The arguments a copy started by --processes times with: these
    ones' (its path, count and JSON file added by ``run_copies``)."""
    argv = ['--config', args.config, '--device', args.device,
            '--batch-size', str(batch), '--workers', str(workers),
            '--steps', str(args.steps), '--warmup', str(args.warmup)]
    if args.compile:
        argv.append('--compile')
    if args.peak_tflops:
        argv += ['--peak-tflops', str(args.peak_tflops)]
    if args.data_root:
        argv += ['--data-root', args.data_root]
    return argv


def print_row(row):
    """A row's line: its path (and processes), images/s, step, wait,
    peak memory and MFU."""
    name = row['path'] if row['processes'] == 1 else \
        f"{row['path']} x{row['processes']}"
    mfu = f", MFU {row['mfu']:.1%}" if row['mfu'] is not None else ''
    each = '' if row['processes'] == 1 else ' (each: ' + ', '.join(
        f'{r:.0f}' for r in row['per_process']) + ')'
    print(f"{name:10s} {row['images_per_s']:8.0f} images/s{each}, "
          f"{row['step_s']:.3f} s a step of {row['batch']}, waiting for "
          f"data {row['data_wait_share']:.1%}, peak "
          f"{row['peak_memory']:.0f} MiB{mfu}", flush=True)


if __name__ == '__main__':
    run_tool(main, prog=PROG)
