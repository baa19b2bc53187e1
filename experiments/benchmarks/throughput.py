r"""Pretraining throughput of RandSAC against a reference and MAE: one
training iteration timed per setting, precision and variant. From the
repository root:

    python -m experiments.benchmarks.throughput \
        [--settings vit-t-cifar vit-s-in100 vit-b-in1k] \
        [--dtypes fp32 bf16] [--variants ...] [--compile] \
        [--out work_dirs/benchmarks/pretrain_throughput.json]

For each setting and precision, one training iteration (forward, backward,
AdamW step) is timed for:

- ``reference``: the test suite's oracle, ``experiments/reference_randsac.py``
  (nn.Transformer layers, sequence-first, boolean masks, the paper's
  listing's structure), with the same weights, layouts and loss;
- ``mae``: mmpretrain's MAE, the same encoder at its own 75% masking, and
  a decoder as wide and deep as the setting's RandSAC decoder
  (``MAEMatchedToRandSAC``; MAE's own default, 512 x 8, is wider than a
  ViT-T and would inflate the ratio);
- ``ours``: ``RandSAC`` as configs build it (all fast paths on);
- ``ours-*``: ours with one fast path off (or, for ``-cp``, ``-compile``
  and, on CUDA, ``-flex``, on), to show what each one is worth.

Each measurement runs in its own process (clean peak memory, no shared
compile caches): ``--warmup`` iterations, then ``--repeats`` rounds of
``--iters`` iterations. ``--passes`` runs the whole list of variants that
many times, one after the other, so a slow drift of the machine's speed
(shared cloud hosts) falls on every variant alike; the table reports the
median of all rounds of all passes and the highest peak memory. Images are
random; the model and the layouts are the setting's pretraining config's
(``RandSACSegmentGenerator.from_config``; a fixed pool of layouts cycled
through, the same for every variant).

Memory: on a GPU, ``torch.cuda.max_memory_allocated``; on a CPU, the peak
resident set size of the process during the timed iterations (``peak``,
sampled every millisecond) and its growth over the resident size before
the first iteration, model and inputs built (``+train``: activations,
gradients, optimizer state and temporaries).
FLOP/s: ``tools/analysis/get_flops.py``'s forward count of the setting
(multiply-accumulates, one layout) x 2 FLOPs x 3 (forward and backward),
per image, times images/s. MFU divides by ``--peak-tflops`` when given.
"""
import argparse
import json
import os.path as osp
import resource
import statistics
import subprocess
import sys
import threading
import time

from randsac_mm.cli.args import (
    HelpFormatter,
    non_negative_int,
    positive_float,
    positive_int,
)
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.run_tool import run_tool

from .. import REPO_ROOT
from ..benchmark_io import machine_info, write_json

__all__ = ['DEFAULT_VARIANTS', 'SETTINGS', 'VARIANTS', 'pool_passes',
           'run_benchmark', 'table_lines']

PROG = 'python -m experiments.benchmarks.throughput'


# name: (pretraining config, CPU batch size).
SETTINGS = {
    'vit-t-cifar': ('configs/pretrain/'
                    'randsac_vit-tiny-p4_square-m2_8xb64-amp-800e_cifar10.py',
                    32),
    'vit-s-in100': ('configs/pretrain/'
                    'randsac_vit-small-p16_blob-16to4_8xb512-amp-800e_in100.py',
                    8),
    'vit-b-in1k': ('configs/randsac_vit-b_in1k.py', 4),
    # The small-scale studies' step (patch-random; the batch theirs).
    'vit-mini-fmnist': ('configs/small_scale/'
                        'randsac_vit-mini-p4_patch-random_fashion-mnist.py',
                        64),
}
# variant: what differs from ``ours``.
VARIANTS = {
    'reference': 'ReferenceRandSAC (nn.Transformer, boolean masks)',
    'mae': 'mmpretrain MAE, 75% masking, decoder sized like ours',
    'ours': 'RandSAC, all fast paths',
    'ours-sdpa': 'SDPA kernel instead of the explicit one',
    'ours-no-trim': 'last segment encoded and first decoded',
    'ours-cp': 'with activation checkpointing',
    'ours-compile': 'torch.compile of the loss',
    'ours-flex': 'flex_attention block-sparse kernel (CUDA only)',
}
DEFAULT_VARIANTS = ('reference', 'mae', 'ours', 'ours-sdpa', 'ours-no-trim',
                    'ours-cp')
LAYOUT_POOL = 8


def _rss_mib():
    """Current resident set size of this process."""
    with open('/proc/self/statm') as f:
        pages = int(f.read().split()[1])
    return pages * resource.getpagesize() / 2**20


class RssSampler:
    """Samples the process's resident memory every millisecond in a thread
    (a CPU has no allocator statistics like CUDA's): ``peak`` is the
    highest sample while running."""

    def __init__(self):
        self.peak = _rss_mib()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.wait(0.001):
            self.peak = max(self.peak, _rss_mib())

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_mib())


def setting_config(setting):
    from mmengine.config import Config
    return Config.fromfile(osp.join(REPO_ROOT, SETTINGS[setting][0]))


def image_size(setting):
    from randsac_mm.datasets import RandSACSegmentGenerator
    generator = RandSACSegmentGenerator.from_config(setting_config(setting))
    return tuple(p * generator.patch_size for p in generator.grid)


def build_model_cfg(setting, variant):
    model = setting_config(setting).model
    if variant == 'ours-sdpa':
        model['attention'] = 'sdpa'
    if variant == 'ours-flex':
        model['attention'] = 'flex'
    if variant == 'ours-cp':
        model['backbone']['with_cp'] = True
        model['neck']['with_cp'] = True
    return model


def layouts(setting, batch_size):
    """A pool of batches of layouts, each a list of ``batch_size`` data
    samples with ``token_rank`` (int64 [N]), as the pipeline packs them."""
    import numpy as np
    from mmpretrain.structures import DataSample

    from randsac_mm.datasets import RandSACSegmentGenerator
    from randsac_mm.segments import make_layout
    spec = RandSACSegmentGenerator.from_config(setting_config(setting)).spec
    rng = np.random.default_rng(0)
    return [[DataSample(token_rank=make_layout(spec, rng).token_rank)
             for _ in range(batch_size)] for _ in range(LAYOUT_POOL)]


def forward_macs(setting):
    """Forward multiply-accumulates of one image (get_flops.py's count)."""
    from randsac_mm.analysis.flops import count
    samples = layouts(setting, 1)[0]
    macs, _, _ = count(build_model_cfg(setting, 'ours'),
                       samples[0].token_rank[None])
    return macs


def build_loss_fn(setting, variant, device):
    """(loss_fn(images, data_samples) -> scalar, trainable parameters)."""
    import torch
    from mmpretrain.registry import MODELS

    torch.manual_seed(0)
    if variant == 'mae':  # the paper's MAE baseline of this setting
        model = MODELS.build(dict(build_model_cfg(setting, 'ours'),
                                  type='MAEMatchedToRandSAC'))
        model.init_weights()
        model.to(device).train()

        def loss_fn(images, data_samples):
            return model.loss(images, [])['loss']
        return loss_fn, model
    model = MODELS.build(build_model_cfg(setting, variant))
    model.init_weights()
    model.to(device).train()
    if variant == 'reference':
        from ..reference_randsac import reference_from_randsac
        ref = reference_from_randsac(model).train()

        def loss_fn(images, data_samples):
            return ref(images,
                       model.stack_token_ranks(data_samples))
        return loss_fn, ref
    trim = variant != 'ours-no-trim'

    def loss_fn(images, data_samples):
        if trim:
            return model.loss(images, data_samples)['loss']
        # The step with every token in both stacks: planned untrimmed.
        batch = model.plan_batch(images, data_samples,
                                 trim_outer_segments=False)
        pred = model.predict_segments(images, batch)
        return model.head.loss(pred, images, batch.decoder_order,
                               batch.loss_mask)
    if variant == 'ours-compile':
        loss_fn = torch.compile(loss_fn)
    return loss_fn, model


def measure(setting, variant, dtype, batch_size, iters, repeats, warmup):
    """Runs in a worker process; returns one result row."""
    import logging

    import torch
    from mmengine.logging import MMLogger
    from mmengine.registry import init_default_scope

    import randsac_mm.registration  # noqa: F401
    MMLogger.get_current_instance().setLevel(logging.WARNING)
    init_default_scope('mmpretrain')
    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    loss_fn, module = build_loss_fn(setting, variant, device)
    params = [p for p in module.parameters() if p.requires_grad]
    # As the configs build it: fused on CUDA (FusedAdamWConstructor).
    optimizer = torch.optim.AdamW(params, lr=1.5e-4, weight_decay=0.05,
                                  fused=device == 'cuda' or None)
    pool = layouts(setting, batch_size)
    images = torch.randn(batch_size, 3, *image_size(setting), device=device)
    rss_built = _rss_mib()

    def sync():
        if device == 'cuda':
            torch.cuda.synchronize()

    def step(i):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device, dtype=torch.bfloat16,
                            enabled=dtype == 'bf16'):
            loss = loss_fn(images, pool[i % len(pool)])
        loss.backward()
        optimizer.step()
        return loss

    with RssSampler() as rss:
        for i in range(warmup):
            step(i)
        sync()
        if device == 'cuda':
            torch.cuda.reset_peak_memory_stats()
        rounds = []
        for r in range(repeats):
            start = time.perf_counter()
            for i in range(iters):
                loss = step(warmup + r * iters + i)
            sync()
            rounds.append((time.perf_counter() - start) / iters)
    seconds = statistics.median(rounds)
    row = dict(setting=setting, variant=variant, dtype=dtype,
               batch_size=batch_size, device=device,
               ms_per_iter=seconds * 1e3, images_per_s=batch_size / seconds,
               rounds_ms=[t * 1e3 for t in rounds], loss=float(loss))
    if device == 'cuda':
        row['peak_mem_mib'] = torch.cuda.max_memory_allocated() / 2**20
    else:
        row['peak_mem_mib'] = rss.peak
        row['train_mem_mib'] = rss.peak - rss_built
    return row


def run_worker(args, setting, variant, dtype, batch_size):
    """One measurement in a fresh process (this module's ``--worker``
    entry), run from the repository root."""
    # --debug: a failure's whole traceback, for the results' 'failed'.
    cmd = [sys.executable, '-m', 'experiments.benchmarks.throughput',
           '--worker', setting, variant, dtype, str(batch_size), '--iters',
           str(args.iters), '--repeats', str(args.repeats), '--warmup',
           str(args.warmup), '--debug']
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO_ROOT)
    if proc.returncode:  # reported; the other variants still run
        return dict(setting=setting, variant=variant, dtype=dtype,
                    batch_size=batch_size, failed=proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def pool_passes(rows):
    """One row from the same measurement's passes: the median of all their
    rounds, the highest peak memory."""
    rounds = [t for r in rows for t in r['rounds_ms']]
    row = dict(rows[-1], rounds_ms=rounds, passes=len(rows),
               ms_per_iter=statistics.median(rounds))
    row['images_per_s'] = row['batch_size'] * 1e3 / row['ms_per_iter']
    for key in ('peak_mem_mib', 'train_mem_mib'):
        if key in row:
            row[key] = max(r[key] for r in rows)
    return row


def _cell(value, spec):
    """``value`` formatted, or '-' where it was not measured."""
    return '-' if value is None else format(value, spec)


def table_lines(rows, macs):
    """The printed table: one line per row; '-' where a value was not
    measured (no reference or MAE row timed for a ratio, no FLOP count for
    the baselines, no --peak-tflops for MFU, no training memory on a
    GPU)."""
    head = (f"{'setting':12s} {'dtype':5s} {'variant':20s} {'bs':>3s} "
            f"{'ms/iter':>8s} {'img/s':>7s} {'xref':>5s} {'xmae':>5s} "
            f"{'peak MiB':>8s} {'+train':>7s} {'GFLOP/s':>8s} {'MFU':>5s}")
    lines = [head, '-' * len(head)]
    for r in rows:
        lines.append(
            f"{r['setting']:12s} {r['dtype']:5s} {r['variant']:20s} "
            f"{r['batch_size']:3d} {r['ms_per_iter']:8.1f} "
            f"{r['images_per_s']:7.1f} "
            f"{_cell(r.get('x_reference'), '.2f'):>5s} "
            f"{_cell(r.get('x_mae'), '.2f'):>5s} "
            f"{r['peak_mem_mib']:8.0f} "
            f"{_cell(r.get('train_mem_mib'), '.0f'):>7s} "
            f"{_cell(r.get('gflops_per_s'), '.1f'):>8s} "
            f"{_cell(r.get('mfu'), '.0%'):>5s}")
    lines.append('xref, xmae: images/s over the reference\'s / MAE\'s, same '
                 "setting and dtype ('-': not measured). FLOPs per image "
                 '(forward MACs): ' + ', '.join(
                     f'{k} {v / 1e9:.2f} G' for k, v in macs.items()))
    return lines


def print_table(rows, macs):
    print('\n'.join(table_lines(rows, macs)))


def run_benchmark(args):
    """Every measurement of ``args`` (the tool's arguments), pooled, the
    table printed, the JSON written."""
    variants = list(args.variants)
    if args.compile and 'ours-compile' not in variants:
        variants.append('ours-compile')
    import torch
    if torch.cuda.is_available() and 'ours-flex' not in variants:
        variants.append('ours-flex')
    import logging

    from mmengine.logging import MMLogger
    from mmengine.registry import init_default_scope

    import randsac_mm.registration  # noqa: F401
    MMLogger.get_current_instance().setLevel(logging.WARNING)
    init_default_scope('mmpretrain')
    macs = {s: forward_macs(s) for s in args.settings}
    rows, failed = [], []
    for setting in args.settings:
        batch_size = SETTINGS[setting][1] if args.batch_size is None \
            else args.batch_size
        for dtype in args.dtypes:
            passes = {v: [] for v in variants}
            for i in range(args.passes):
                for variant in variants:
                    row = run_worker(args, setting, variant, dtype,
                                     batch_size)
                    if 'failed' in row:
                        last = row['failed'].strip().splitlines()[-1:]
                        print(f'{setting} {dtype} {variant} (pass {i + 1}/'
                              f'{args.passes}): FAILED: {last}', flush=True)
                        failed.append(row)
                        continue
                    print(f"{setting} {dtype} {variant} (pass {i + 1}/"
                          f"{args.passes}): {row['ms_per_iter']:.1f} ms/iter",
                          flush=True)
                    passes[variant].append(row)
            group = [pool_passes(passes[v]) for v in variants if passes[v]]
            by_name = {r['variant']: r for r in group}
            for row in group:
                for base in ('reference', 'mae'):
                    if base in by_name:
                        row[f'x_{base}'] = (row['images_per_s'] /
                                            by_name[base]['images_per_s'])
                if row['variant'].startswith('ours'):
                    flops = row['images_per_s'] * macs[setting] * 2 * 3
                    row['gflops_per_s'] = flops / 1e9
                    if args.peak_tflops:
                        row['mfu'] = flops / (args.peak_tflops * 1e12)
            rows.extend(group)
    print_table(rows, macs)
    result = dict(machine=machine_info(),
                  command=' '.join([PROG, *sys.argv[1:]]),
                  iters=args.iters, repeats=args.repeats,
                  warmup=args.warmup, passes=args.passes,
                  forward_macs_per_image=macs,
                  variants={v: VARIANTS[v] for v in variants}, rows=rows,
                  failed=failed)
    write_json(args.out, result)
    if failed:
        print(f'{len(failed)} measurement(s) failed, their errors are in '
              f"{args.out} under 'failed': " + ', '.join(
                  f"{r['setting']} {r['dtype']} {r['variant']}"
                  for r in failed))


def worker_main(argv):
    """``python -m experiments.benchmarks.throughput --worker SETTING VARIANT
    DTYPE BATCH --iters I --repeats R --warmup W [--debug]``: one
    measurement, printed as a JSON line."""
    parser = argparse.ArgumentParser(prog=PROG)
    parser.add_argument('--worker', nargs=4, required=True)
    parser.add_argument('--iters', type=int, required=True)
    parser.add_argument('--repeats', type=int, required=True)
    parser.add_argument('--warmup', type=int, required=True)
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    setting, variant, dtype, batch_size = args.worker
    print(json.dumps(measure(setting, variant, dtype, int(batch_size),
                             args.iters, args.repeats, args.warmup)))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--settings', nargs='+', choices=list(SETTINGS),
                        default=list(SETTINGS),
                        help='model and data settings, each a pretraining '
                        'config: ' + ', '.join(
                            f'{k} ({v[0]}, batch {v[1]})'
                            for k, v in SETTINGS.items()))
    parser.add_argument('--dtypes', nargs='+', choices=('fp32', 'bf16'),
                        default=['fp32', 'bf16'],
                        help='precisions (bf16: autocast)')
    parser.add_argument('--variants', nargs='+', choices=list(VARIANTS),
                        default=list(DEFAULT_VARIANTS),
                        help='what is timed: ' + '; '.join(
                            f'{k}: {v}' for k, v in VARIANTS.items()
                        ).replace('%', '%%'))
    parser.add_argument('--compile', action='store_true',
                        help='also time ours-compile (torch.compile)')
    parser.add_argument('--batch-size', type=positive_int,
                        help="images per iteration, for every setting; "
                        "None: each setting's (see --settings)")
    parser.add_argument('--iters', type=positive_int, default=3,
                        help='iterations per timed round')
    parser.add_argument('--repeats', type=positive_int, default=5,
                        help='timed rounds per measurement (the median '
                        'counts)')
    parser.add_argument('--warmup', type=non_negative_int, default=2,
                        help='untimed iterations before the rounds')
    parser.add_argument('--passes', type=positive_int, default=1,
                        help='times the list of variants is run, '
                        'interleaved (rounds of all passes are pooled)')
    parser.add_argument('--peak-tflops', type=positive_float,
                        help='peak FLOP/s of the device for the dtype '
                        '(e.g. 989 for an H100 SXM in bf16), for MFU; '
                        "None: no MFU ('-')")
    parser.add_argument(
        '--out', default='work_dirs/benchmarks/pretrain_throughput.json',
        help='JSON file for the results')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['--worker']:  # one measurement, started by run_worker
        return worker_main(argv)
    run_benchmark(parse_args(argv))


if __name__ == '__main__':
    run_tool(main, prog=PROG)
