"""The main job on the embedded default data: `make demo`.

On scikit-learn's handwritten digits, on the CPU:
  1. pretrains a mini RandSAC ViT (configs/demo/randsac_vit-mini-p4_square-
     16to4_digits.py), with progress in the log;
  2. linear-probes its frozen features and those of a randomly initialised
     encoder of the same shape (configs/demo/vit-mini-p4_linear_digits.py);
  3. prints both accuracies, and writes to --work-dir: loss_curve.png,
     reconstruction.png (original, serialization, prediction), segments.gif
     and results.json.
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
import torch  # noqa: E402
from mmengine.config import Config  # noqa: E402
from mmengine.runner import Runner  # noqa: E402

import randsac_mm  # noqa: F401,E402
from randsac_mm.datasets import DigitsDataset  # noqa: E402
from randsac_mm.datasets.transforms import RandSACSegmentGenerator  # noqa
from randsac_mm.utils.visualization import (reveal_frames, save_gif,  # noqa
                                            steps_overlay)

REPO_ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))
PRETRAIN_CONFIG = osp.join(REPO_ROOT, 'configs', 'demo',
                           'randsac_vit-mini-p4_square-16to4_digits.py')
PROBE_CONFIG = osp.join(REPO_ROOT, 'configs', 'demo',
                        'vit-mini-p4_linear_digits.py')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--work-dir', default='work_dirs/demo',
                        help='where checkpoints, logs and pictures go')
    parser.add_argument('--pretrain-epochs', type=int, default=40,
                        help='RandSAC pretraining epochs (default 40)')
    parser.add_argument('--probe-epochs', type=int, default=15,
                        help='linear probe epochs (default 15)')
    parser.add_argument('--seed', type=int, default=0, help='run seed')
    parser.add_argument('--num-pictures', type=int, default=8,
                        help='test digits in the reconstruction picture')
    return parser.parse_args(argv)


def set_epochs(cfg, epochs):
    """Shortens or lengthens a config's epoch-based schedule."""
    cfg.train_cfg.max_epochs = epochs
    if 'val_interval' in cfg.train_cfg:
        cfg.train_cfg.val_interval = epochs
    warmup_end = 0
    for scheduler in cfg.param_scheduler:
        if scheduler['type'] == 'LinearLR':
            scheduler['end'] = min(scheduler['end'], max(epochs // 10, 1))
            warmup_end = scheduler['end']
        else:
            scheduler['begin'] = min(scheduler.get('begin', 0), warmup_end)
            scheduler['end'] = epochs
    cfg.default_hooks.checkpoint.interval = epochs


def pretrain(args):
    cfg = Config.fromfile(PRETRAIN_CONFIG)
    set_epochs(cfg, args.pretrain_epochs)
    cfg.work_dir = osp.join(args.work_dir, 'pretrain')
    cfg.experiment_name = 'demo_pretrain'
    cfg.randomness = dict(seed=args.seed)
    runner = Runner.from_cfg(cfg)
    runner.train()
    return runner, osp.join(cfg.work_dir, f'epoch_{args.pretrain_epochs}.pth')


def probe(args, checkpoint, name):
    """Linear probe accuracy (%) of a pretrained or a random encoder."""
    cfg = Config.fromfile(PROBE_CONFIG)
    set_epochs(cfg, args.probe_epochs)
    cfg.work_dir = osp.join(args.work_dir, f'probe_{name}')
    cfg.experiment_name = f'demo_probe_{name}'
    cfg.randomness = dict(seed=args.seed)
    if checkpoint is None:
        cfg.model.backbone.init_cfg = None
    else:
        cfg.model.backbone.init_cfg.checkpoint = checkpoint
    runner = Runner.from_cfg(cfg)
    runner.train()
    return float(runner.test()['accuracy/top1'])


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
    ax.set_title('RandSAC pretraining on digits')
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return losses


def unpatchify(patches, patch_size, grid):
    """[B, N, P*P*C] -> [B, C, H, W] (inverse of the head's patchify)."""
    b, _, _ = patches.shape
    h, w = grid
    x = patches.reshape(b, h, w, patch_size, patch_size, -1)
    return x.permute(0, 5, 1, 3, 2, 4).reshape(b, -1, h * patch_size,
                                               w * patch_size)


def reconstructions(model, cfg, args, picture_path, gif_path):
    """Original, serialization and prediction of test digits."""
    images = DigitsDataset(split='test')
    step = next(t for t in cfg.train_dataloader.dataset.pipeline
                if t['type'] == 'RandSACSegmentGenerator')
    generator = RandSACSegmentGenerator(
        **{k: v for k, v in step.items() if k != 'type'})
    np.random.seed(args.seed)
    picks = [images[i]['img'] for i in range(args.num_pictures)]
    ranks = np.stack([generator(dict())['token_rank'] for _ in picks])
    mean = torch.tensor(cfg.data_preprocessor.mean).view(1, 3, 1, 1)
    std = torch.tensor(cfg.data_preprocessor.std).view(1, 3, 1, 1)
    raw = torch.from_numpy(np.stack(picks)).permute(0, 3, 1, 2).float()
    from mmpretrain.structures import DataSample
    samples = []
    for rank in ranks:
        sample = DataSample()
        sample.set_field(rank, 'token_rank')
        samples.append(sample)
    model.eval()
    out = model.reconstruct((raw - mean) / std, samples)
    grid = generator.grid
    patch = model.head.patch_size
    pred = unpatchify(out['pred'], patch, grid) * std + mean
    predicted = unpatchify(out['loss_mask'][..., None].float().expand_as(
        out['pred']), patch, grid) > 0
    # The first segment is given, not predicted: show it as it is.
    shown = torch.where(predicted, pred, raw).clamp(0, 255)
    scale = 4
    rows = []
    for i, img in enumerate(picks):
        big = np.kron(img, np.ones((scale, scale, 1), dtype=np.uint8))
        recon = np.kron(shown[i].permute(1, 2, 0).round().byte().numpy(),
                        np.ones((scale, scale, 1), dtype=np.uint8))
        rows.append((big, steps_overlay(big, ranks[i], grid), recon))
    fig, axes = plt.subplots(3, len(rows), figsize=(1.5 * len(rows), 4.8))
    for col, triple in enumerate(rows):
        for row, picture in enumerate(triple):
            axes[row, col].imshow(picture)
            axes[row, col].axis('off')
    for row, title in enumerate(['original', 'serialization',
                                 'prediction']):
        axes[row, 0].set_title(title, fontsize=8, loc='left')
    fig.suptitle('RandSAC on held-out digits: every segment but the first '
                 'predicted from the earlier ones', fontsize=9)
    fig.tight_layout()
    fig.savefig(picture_path, dpi=110)
    plt.close(fig)
    big = np.kron(picks[0], np.ones((8, 8, 1), dtype=np.uint8))
    save_gif(reveal_frames(big, ranks[0], grid), gif_path)


def main(argv=None):
    args = parse_args(argv)
    for name in ('pretrain_epochs', 'probe_epochs', 'num_pictures'):
        if getattr(args, name) < 1:
            raise ValueError(f'--{name.replace("_", "-")} must be >= 1, got '
                             f'{getattr(args, name)}')
    os.makedirs(args.work_dir, exist_ok=True)
    start = time.time()
    runner, checkpoint = pretrain(args)
    losses = loss_curve(runner, osp.join(args.work_dir, 'loss_curve.png'))
    reconstructions(runner.model, runner.cfg, args,
                    osp.join(args.work_dir, 'reconstruction.png'),
                    osp.join(args.work_dir, 'segments.gif'))
    pretrained = probe(args, checkpoint, 'pretrained')
    random_init = probe(args, None, 'random')
    results = dict(
        pretrain_epochs=args.pretrain_epochs, probe_epochs=args.probe_epochs,
        seed=args.seed, first_loss=losses[0], final_loss=losses[-1],
        probe_pretrained=pretrained, probe_random=random_init,
        checkpoint=checkpoint, minutes=(time.time() - start) / 60)
    with open(osp.join(args.work_dir, 'results.json'), 'w') as f:
        json.dump(results, f, indent=2)
    print(f"""
RandSAC demo on the embedded digits ({results['minutes']:.1f} min on the CPU)
  pretraining      {args.pretrain_epochs} epochs, loss {losses[0]:.3f} -> {losses[-1]:.3f}
  linear probe     pretrained encoder: {pretrained:6.2f}%
  linear probe     random encoder:     {random_init:6.2f}%
  written          {args.work_dir}/loss_curve.png, reconstruction.png,
                   segments.gif, results.json""")


if __name__ == '__main__':
    main()
