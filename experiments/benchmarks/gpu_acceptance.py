"""The acceptance run of a new GPU node: ten minutes from a fresh node to
measured figures, on one GPU. From the repository root:

    python -m experiments.benchmarks.gpu_acceptance --out work_dirs/acceptance
    python -m experiments.benchmarks.gpu_acceptance --out DIR --smoke  # CPU

It:

1. records the device and the software versions;
2. checks every registered attention kernel (``randsac_mm.models.
   attention.numerical_check``: each SDPA backend, explicit, flex, and any
   kernel a user registered), forward and backward in bf16 against
   float32, normal and low-logsumexp rows;
3. trains the main config through ``tools/train.py`` (the command a user
   runs) for ``--iters`` iterations at its batch, on synthetic
   ImageNet-format JPEGs it writes (ImageNet's typical sizes, an
   annotation file, the config's own pipeline and dataloader workers),
   eager and compiled (``tools/train.py --compile``), and reads mmengine's log:
   images/s, MFU, the peak memory against the memory model
   (``tools/analysis/pretrain_memory.py``), the share of step time spent
   waiting for data (each epoch's first batch apart: its wait is given on
   its own);
4. runs forward and backward of the UperNet (512 px) and Mask R-CNN (1024
   px) backbones at their configs' batch and precision;
5. writes ``acceptance.json`` and ``acceptance.md`` to ``--out``.

``--smoke`` runs the same path on the CPU (``--device cpu``) with a tiny
model, few images and iterations: the test suite runs it.
"""
import argparse
import os
import os.path as osp
import statistics
import sys
import time

from randsac_mm.cli.args import HelpFormatter, positive_float, positive_int
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.run_tool import run_tool

from .. import REPO_ROOT
from ..benchmark_io import (
    COMMIT_VARIABLE,
    code_commit,
    machine_info,
    write_json,
)
from ..cells import cell
from ..scalars import logged_entries
from .data_pipeline import pipeline_throughput, write_jpegs
from .train_tool import run_train_tool

PROG = 'python -m experiments.benchmarks.gpu_acceptance'
MAIN = osp.join(REPO_ROOT, 'configs', 'randsac_vit-b_in1k.py')
BACKBONES = {  # name: (config, image side)
    'upernet': ('configs/segmentation/'
                'upernet_randsac-vit-b_8xb2-160k_ade20k-512x512.py', 512),
    'mask-rcnn': ('configs/detection/mask-rcnn_randsac-vit-b_fpn_coco.py',
                  1024),
}
# Dense bf16 tensor-core peaks (TFLOP/s), by a part of the device's name;
# anything else needs --peak-tflops for MFU.
PEAK_TFLOPS = {'H100 80GB HBM3': 989, 'H100 SXM': 989, 'H200': 989,
               'H100 PCIe': 756, 'H100 NVL': 835, 'A100': 312}
# The smoke run's model: the main config with a tiny ViT and decoder.
SMOKE_MODEL = """
model = dict(
    backbone=dict(arch=dict(_delete_=True, embed_dims=32, num_layers=2,
                            num_heads=2, feedforward_channels=64)),
    neck=dict(embed_dims=32, num_layers=2, num_heads=2))
"""


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--out', required=True,
                        help='folder for acceptance.json, acceptance.md and '
                        'the runs (made if missing)')
    parser.add_argument('--smoke', action='store_true',
                        help='the same path on the CPU with a tiny model, '
                        'few images and iterations (the test suite)')
    parser.add_argument('--iters', type=positive_int, default=None,
                        help='training iterations per run; None: 50 (smoke '
                        '6)')
    parser.add_argument('--warmup', type=int, default=None,
                        help='first iterations left out of the figures, '
                        '>= 0 and below --iters; None: 10 (worker start, '
                        'compilation; smoke 2)')
    parser.add_argument('--images', type=positive_int, default=None,
                        help='synthetic JPEGs written (an epoch is a pass '
                        'over them); None: 4 batches')
    parser.add_argument('--peak-tflops', type=positive_float, default=None,
                        help='the device\'s dense bf16 peak, for MFU; None: '
                        'from its name, e.g. 989 for an H100 SXM (no MFU '
                        'for an unknown device)')
    parser.add_argument('--skip', nargs='+', default=[],
                        choices=['check', 'train', 'compiled', 'data',
                                 'backbones'],
                        help='parts not to run')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    args.device = 'cpu' if args.smoke else 'cuda'
    args.iters = args.iters or (6 if args.smoke else 50)
    args.warmup = (2 if args.smoke else 10) if args.warmup is None \
        else args.warmup
    if not 0 <= args.warmup < args.iters:
        parser.error(f'argument --warmup: must be >= 0 and below --iters '
                     f'({args.iters}), got {args.warmup}')
    return args, parser


def log(line):
    print(f'[acceptance] {line}', flush=True)


def environment(device):
    """The device and the versions of what runs on it: what every
    benchmark records (``machine_info``), and the stack, the commit, the
    GPU's properties, cuDNN and the driver."""
    from importlib import metadata

    import torch

    from randsac_mm.cli.device import driver_version
    env = dict(machine_info(), cuda=torch.version.cuda)
    for name in ('mmengine', 'mmpretrain', 'mmcv', 'mmcv-lite', 'numpy',
                 'randsac-mm'):
        try:
            env[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    env['commit'] = code_commit()
    if env['commit'] is None:
        log(f'the commit of the code is unknown (no git here): set '
            f'{COMMIT_VARIABLE} to the commit the tree was copied from')
    if device == 'cuda':
        props = torch.cuda.get_device_properties(0)
        env.update(gpu_memory_gib=props.total_memory / 2**30,
                   multiprocessors=props.multi_processor_count,
                   cudnn=torch.backends.cudnn.version(),
                   driver=driver_version())
    else:
        env['gpu'] = None
    return env


def peak_tflops(args, env):
    if args.peak_tflops:
        return args.peak_tflops
    for part, value in PEAK_TFLOPS.items():
        if env.get('gpu') and part in env['gpu']:
            return value
    return None


def attention_rows(device, smoke):
    """The kernel check: every variant of every registered kernel
    (``numerical_check.attention_check``)."""
    from randsac_mm.models.attention.numerical_check import attention_check
    if smoke:
        return attention_check('cpu', lengths=(63, 64), batch=2, heads=2,
                               head_dim=16)
    return attention_check(device)


def write_imagenet(root, count):
    """``count`` JPEG photographs of ImageNet's typical sizes
    (``experiments.benchmarks.data_pipeline.write_jpegs``) in ImageNet's
    annotation-file layout: ``root/train/<wnid>/*.JPEG`` and
    ``root/meta/train.txt``.

    Returns:
        list[str]: the image paths.
    """
    wnid = 'n00000000'
    os.makedirs(osp.join(root, 'train', wnid), exist_ok=True)
    os.makedirs(osp.join(root, 'meta'), exist_ok=True)
    paths = write_jpegs(osp.join(root, 'train', wnid), count)
    with open(osp.join(root, 'meta', 'train.txt'), 'w') as f:
        f.writelines(f'{wnid}/{osp.basename(p)} 0\n' for p in paths)
    return paths


def data_part(args, results, cfg, paths):
    """Part 5: what feeding the GPU takes: one dataloader worker's rate on
    the config's pipeline (as ``python -m
    experiments.benchmarks.data_pipeline``), and
    JPEG decoding alone with torchvision on the CPU (one thread) and, on a
    GPU, with ``torchvision.io.decode_jpeg`` on CUDA (batches of 128)."""
    import torch
    from torchvision.io import decode_jpeg, read_file
    sample = paths[:40 if args.smoke else 200]
    worker = pipeline_throughput(cfg.train_dataloader.dataset.pipeline,
                                 sample, rounds=2)
    data = [read_file(p) for p in sample]
    start = time.perf_counter()
    for blob in data:
        decode_jpeg(blob)
    cpu_decode = len(data) / (time.perf_counter() - start)
    row = dict(worker_images_per_s=worker['images_per_s'],
               worker_ms_per_step=worker['steps'],
               cpu_decode_images_per_s=cpu_decode)
    if args.device == 'cuda':
        blobs = [read_file(p) for p in paths]
        for _ in range(2):  # the first round starts nvJPEG
            torch.cuda.synchronize()
            start = time.perf_counter()
            for i in range(0, len(blobs), 128):
                decode_jpeg(blobs[i:i + 128], device='cuda')
            torch.cuda.synchronize()
        row['gpu_decode_images_per_s'] = len(blobs) / (time.perf_counter() -
                                                       start)
    runs = results.get('train', {}).get('runs', {})
    row['workers_needed'] = {name: r['images_per_s'] /
                             row['worker_images_per_s']
                             for name, r in runs.items()}
    results['data'] = row
    log(f"one worker prepares {row['worker_images_per_s']:.0f} images/s; "
        f'decoding alone {cpu_decode:.0f}/s on one CPU thread' + (
            f", {row['gpu_decode_images_per_s']:.0f}/s on the GPU"
            if 'gpu_decode_images_per_s' in row else ''))


def run_config(args):
    """The config the runs train: the main one, or its tiny smoke form."""
    if not args.smoke:
        return MAIN
    path = osp.join(args.out, 'smoke_config.py')
    with open(path, 'w') as f:
        f.write(f'_base_ = [{MAIN!r}]\n{SMOKE_MODEL}')
    return path


def train(args, config, data_root, batch_size, workers, epochs, compiled):
    """One ``tools/train.py`` run; returns its per-iteration log entries
    (mmengine's ``scalars.json``) and its wall time."""
    name = 'compiled' if compiled else 'eager'
    work_dir = osp.join(args.out, f'train_{name}')
    options = [
        f'train_dataloader.dataset.data_root={data_root}',
        'train_dataloader.dataset.ann_file=meta/train.txt',
        f'train_dataloader.batch_size={batch_size}',
        f'train_dataloader.num_workers={workers}',
        f'train_dataloader.persistent_workers={workers > 0}',
        f'train_cfg.max_epochs={epochs}',
        'default_hooks.logger.interval=1', 'log_processor.window_size=1',
        'default_hooks.checkpoint.interval=1000000',
        'default_hooks.checkpoint.save_last=False']
    wall = run_train_tool(
        [config, '--device', args.device, '--work-dir', work_dir,
         *(['--compile'] if compiled else []), '--cfg-options', *options],
        osp.join(args.out, f'train_{name}.log'), f'tools/train.py ({name})')
    return logged_entries(work_dir, key='time'), wall


def train_figures(entries, warmup, batch_size, flops_per_image, peak):
    """Figures of one run from its per-iteration log entries, after
    ``warmup`` iterations."""
    steady = entries[warmup:]
    step = statistics.median(e['time'] for e in steady)
    # An epoch's first batch waits for one worker to make all of it (the
    # loader prefetches nothing across epochs): with the run's few images
    # that is every few steps (2.0-2.8 s of 3.2 s at batch 512 on the first
    # H100 window), with ImageNet once in 2,500. So the wait is given for
    # the other steps, and the epochs' first batches apart.
    firsts = [e for before, e in zip([None] + entries, entries)
              if before is None or e['epoch'] != before['epoch']]
    within = [e for e in steady if e not in firsts]
    data = sum(e['data_time'] for e in within)
    images_per_s = batch_size / step
    row = dict(iterations=len(entries), measured=len(steady),
               ms_per_step=step * 1e3, images_per_s=images_per_s,
               data_wait_share=data / sum(e['time'] for e in within)
               if within else None,
               epoch_start_wait_s=statistics.median(
                   e['data_time'] for e in firsts),
               first_step_s=entries[0]['time'],
               loss_first=entries[0]['loss'], loss_last=entries[-1]['loss'],
               tflops=images_per_s * flops_per_image / 1e12)
    row['mfu'] = row['tflops'] / peak if peak else None
    memory = [e['memory'] for e in entries if 'memory' in e]
    row['peak_allocated_gib'] = max(memory) / 1024 if memory else None
    return row


def train_batch(args, cfg):
    """Images per step: the config's, or the smoke run's 8."""
    return 8 if args.smoke else cfg.train_dataloader.batch_size


def train_part(args, results, peak, config, cfg, root, paths, save):
    """Part 3: the main config, eager and compiled, from tools/train.py;
    ``save(part)`` after each run."""
    from randsac_mm.analysis.flops import forward_macs
    from randsac_mm.analysis.memory import estimate_memory
    batch_size = train_batch(args, cfg)
    workers = 0 if args.smoke else min(cfg.train_dataloader.num_workers,
                                       (os.cpu_count() or 2) - 1)
    count = len(paths)
    size = sum(osp.getsize(p) for p in paths)
    epochs = -(-args.iters * batch_size // count)
    flops = forward_macs(cfg) * 2 * 3
    model = estimate_memory(cfg, gpus=1, batch_size=batch_size,
                            device=args.device)
    results['train'] = dict(
        config=osp.relpath(config, REPO_ROOT) if not args.smoke else
        'configs/randsac_vit-b_in1k.py with a tiny model (--smoke)',
        batch_size=batch_size, workers=workers, images=count,
        image_mib=size / 2**20, epochs=epochs,
        gflops_per_image=flops / 1e9, memory_model_gib=model['peak'] / 2**30,
        runs={})
    runs = {}
    for compiled in (False, True):
        name = 'compiled' if compiled else 'eager'
        if compiled and 'compiled' in args.skip:
            continue
        log(f'training {args.iters} iterations ({epochs} epochs of {count} '
            f'images, batch {batch_size}, {workers} workers), {name}')
        entries, wall = train(args, config, root, batch_size, workers,
                              epochs, compiled)
        row = train_figures(entries, args.warmup, batch_size, flops, peak)
        row['wall_s'] = wall
        if row['peak_allocated_gib']:
            row['memory_model_error'] = (results['train']['memory_model_gib']
                                         / row['peak_allocated_gib'] - 1)
        results['train']['runs'][name] = row
        runs[name] = [e['loss'] for e in entries]
        log(f"{name}: {row['ms_per_step']:.1f} ms/step, "
            f"{row['images_per_s']:.0f} images/s, waiting for data "
            f"{cell(row['data_wait_share'], '.0%')} (an epoch's first batch: "
            f"{row['epoch_start_wait_s']:.1f} s)")
        if not compiled:
            save('train eager')
    if len(runs) == 2:  # the same data and seed: the same losses
        results['train']['loss_difference'] = max(
            abs(a - b) for a, b in zip(*runs.values()))
    save('train')


def backbone_part(args, results):
    """Part 4: forward and backward of the downstream backbones."""
    import torch
    from mmengine.config import Config

    from randsac_mm.analysis.memory import step_precision
    from randsac_mm.models.backbones import RandSACViTPyramid
    results['backbones'] = {}
    for name, (path, side) in BACKBONES.items():
        # Not importing custom modules: the node may lack mmseg and mmdet,
        # which the backbone does not need.
        cfg = Config.fromfile(osp.join(REPO_ROOT, path),
                              import_custom_modules=False)
        spec = dict(cfg.model.backbone)
        spec.pop('type'), spec.pop('init_cfg', None)
        if spec.get('norm_cfg', {}).get('type') == 'SyncBN':
            spec['norm_cfg'] = dict(spec['norm_cfg'], type='BN')  # 1 GPU
        batch = cfg.train_dataloader.batch_size
        if args.smoke:
            spec['arch'] = dict(embed_dims=32, num_layers=12, num_heads=2,
                                feedforward_channels=64)
            side, batch = side // 8, 1
        dtype = step_precision(cfg, 'cuda')
        if args.device == 'cpu' and dtype is not None:
            dtype = torch.bfloat16  # a CPU's low precision
        backbone = RandSACViTPyramid(**dict(spec, img_size=side)).to(
            args.device)
        backbone.train()  # (mmpretrain's ViT returns None from train())
        images = torch.randn(batch, 3, side, side, device=args.device)
        times = []
        for i in range(6 if not args.smoke else 2):
            if args.device == 'cuda':
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
            start = time.perf_counter()
            with torch.autocast(args.device, dtype=dtype or torch.float32,
                                enabled=dtype is not None):
                loss = sum(f.float().mean() for f in backbone(images))
            loss.backward()
            if args.device == 'cuda':
                torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
        row = dict(config=path, side=side, batch=batch,
                   precision=str(dtype or torch.float32)[6:],
                   window_size=spec.get('window_size'),
                   ms_fwd_bwd=statistics.median(times[1:]) * 1e3)
        if args.device == 'cuda':
            row['peak_allocated_gib'] = torch.cuda.max_memory_allocated() \
                / 2**30
        results['backbones'][name] = row
        log(f"{name} backbone at {side} px, batch {batch}: "
            f"{row['ms_fwd_bwd']:.1f} ms forward and backward")
        del backbone, images, loss


def markdown(results):
    """The tables of ``acceptance.md``."""
    env = results['environment']
    lines = [f"# Acceptance run, {results['date']}", '',
             f"Device: {env.get('gpu') or 'CPU (smoke)'}; torch "
             f"{env['torch']} (CUDA {env['cuda']}, cuDNN "
             f"{env.get('cudnn', '-')}), driver {env.get('driver', '-')}, "
             f"Python {env['python']}, {env['cpu_count']} CPUs; mmengine "
             f"{env.get('mmengine')}, mmpretrain {env.get('mmpretrain')}; "
             f"code {env.get('commit')}. Command: `{results['command']}`. "
             f"Parts done: {', '.join(results.get('parts_done', [])) or '-'}"
             '.', '']
    if 'attention' in results:
        lines += ['## Masked attention kernels (bf16 against float32)', '',
                  '| kernel | length | rows | finite | NaN | rel. error | '
                  'ok |',
                  '| --- | ---: | --- | --- | ---: | ---: | --- |']
        for r in results['attention']:
            if 'skipped' in r:
                lines.append(f"| {r['kernel']} | {r['length']} | {r['rows']}"
                             f" | skipped: {r['skipped'][:80]} | | | |")
                continue
            lines.append(f"| {r['kernel']} | {r['length']} | {r['rows']} | "
                         f"{r['finite']} | {r['nan']} | {r['error']:.2e} | "
                         f"{'yes' if r['ok'] else '**no**'} |")
        lines.append('')
    train = results.get('train')
    if train:
        lines += [f"## Training `{train['config']}` through tools/train.py",
                  '', f"Batch {train['batch_size']}, {train['workers']} "
                  f"dataloader workers, {train['images']} synthetic JPEGs "
                  f"({train['image_mib']:.0f} MiB), "
                  f"{train['gflops_per_image']:.1f} GFLOP per image; the "
                  f"memory model says {train['memory_model_gib']:.2f} GiB. "
                  'Compiled against eager, the largest difference of the '
                  'logged losses: ' + cell(train.get('loss_difference'),
                                         '.2e') + '.',
                  '', '| run | ms/step | images/s | TFLOP/s | MFU | waiting '
                  "for data | an epoch's first batch | peak allocated | "
                  'model error | first step | loss |', '| --- | ---: | ---: '
                  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |']
        for name, r in train['runs'].items():
            lines.append(
                f"| {name} | {r['ms_per_step']:.1f} | "
                f"{r['images_per_s']:.0f} | {r['tflops']:.1f} | "
                f"{cell(r['mfu'], '.1%')} | "
                f"{cell(r['data_wait_share'], '.1%')} | "
                f"{r['epoch_start_wait_s']:.1f} s | "
                f"{cell(r['peak_allocated_gib'], '.1f', ' GiB')} | "
                f"{cell(r.get('memory_model_error'), '+.1%')} | "
                f"{r['first_step_s']:.1f} s | {r['loss_first']:.3f} -> "
                f"{r['loss_last']:.3f} |")
        lines.append('')
    data = results.get('data')
    if data:
        lines += ['## Feeding the GPU', '',
                  f"One dataloader worker prepares "
                  f"{data['worker_images_per_s']:.0f} images/s with the "
                  "config's pipeline (ms per image: " + ', '.join(
                      f'{k} {v:.2f}' for k, v in
                      data['worker_ms_per_step'].items()) + '). JPEG '
                  f"decoding alone: {data['cpu_decode_images_per_s']:.0f} "
                  'images/s on one CPU thread' + (
                      f", {data['gpu_decode_images_per_s']:.0f} on the GPU "
                      '(`torchvision.io.decode_jpeg`, batches of 128)'
                      if 'gpu_decode_images_per_s' in data else '') +
                  '. Workers the measured steps need: ' + ', '.join(
                      f'{k} {v:.1f}' for k, v in
                      data['workers_needed'].items()) + '.', '']
    if results.get('backbones'):
        lines += ['## Downstream backbones, forward and backward', '',
                  '| backbone | side | batch | precision | windows | ms | '
                  'peak allocated |', '| --- | ---: | ---: | --- | ---: | '
                  '---: | ---: |']
        for name, r in results['backbones'].items():
            peak = cell(r.get('peak_allocated_gib'), '.2f', ' GiB')
            lines.append(f"| {name} | {r['side']} | {r['batch']} | "
                         f"{r['precision']} | {cell(r['window_size'], 'd')} | "
                         f"{r['ms_fwd_bwd']:.1f} | {peak} |")
        lines.append('')
    return '\n'.join(lines)


def main(argv=None):
    args, parser = parse_args(argv)
    from randsac_mm.cli.device import use_device_or_exit
    use_device_or_exit(args.device, PROG)
    os.makedirs(args.out, exist_ok=True)
    import randsac_mm.registration  # noqa: F401  (registers)
    start = time.time()
    results = dict(date=time.strftime('%Y-%m-%d'), command=' '.join(
        [PROG] + sys.argv[1:]),
        smoke=args.smoke, environment=environment(args.device))
    peak = peak_tflops(args, results['environment'])
    results['peak_tflops'] = peak
    log(f"device: {results['environment'].get('gpu') or 'CPU (smoke)'}, "
        + (f'peak {peak} TFLOP/s' if peak else 'peak unknown: no MFU (give '
           '--peak-tflops)'))
    results['parts_done'] = []

    def save(part):
        """Both files as they stand after ``part``: a run stopped later
        (a GPU window's end) keeps what it measured."""
        results['parts_done'].append(part)
        results['minutes'] = (time.time() - start) / 60
        write_json(osp.join(args.out, 'acceptance.json'), results)
        with open(osp.join(args.out, 'acceptance.md'), 'w') as f:
            f.write(markdown(results) + '\n')

    if 'check' not in args.skip:
        log('checking the masked attention kernels')
        results['attention'] = attention_rows(args.device, args.smoke)
        save('check')
    if {'train', 'data'} - set(args.skip):
        from mmengine.config import Config
        config = run_config(args)
        cfg = Config.fromfile(config)
        count = args.images or 4 * train_batch(args, cfg)
        root = osp.join(args.out, 'imagenet')
        log(f'writing {count} ImageNet-format JPEGs to {root}')
        paths = write_imagenet(root, count)
    if 'train' not in args.skip:
        train_part(args, results, peak, config, cfg, root, paths, save)
    if 'data' not in args.skip:
        data_part(args, results, cfg, paths)
        save('data')
    if 'backbones' not in args.skip:
        backbone_part(args, results)
        save('backbones')
    print(markdown(results))
    log(f"wrote {args.out}/acceptance.json and acceptance.md in "
        f"{results['minutes']:.1f} min")


if __name__ == '__main__':
    run_tool(main, prog=PROG)
