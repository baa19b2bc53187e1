"""Linear probe and k-NN accuracy of any checkpoint's frozen encoder.

The encoder is the pretraining config's own backbone (RandSAC, its
two-stream variant through all its layers, mmpretrain's MAE, ...), so any
checkpoint of that config evaluates without an evaluation config of
matching shape. Labelled data come from a data config with a
``train_dataloader`` and a ``test_dataloader`` without augmentation (e.g.
``configs/_base_/datasets/fashion-mnist.py``, ``mnist5k.py``).

    python tools/analysis/eval_frozen.py CONFIG CHECKPOINT --data DATA_CONFIG
        [--k 20] [--temperature 0.07] [--probe-epochs 90] [--out result.json]
    python tools/analysis/eval_frozen.py CONFIG --random-init --data ...

It prints the linear-probe and k-NN top-1 accuracies and writes them as
JSON (default: next to the checkpoint, ``<checkpoint>.frozen_eval.json``).
"""
import argparse
import json
import os.path as osp
import sys

ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('config', help='the pretraining config')
    parser.add_argument('checkpoint', nargs='?',
                        help='a checkpoint of that config')
    parser.add_argument('--random-init', action='store_true',
                        help='evaluate the config\'s model as initialised '
                        '(no checkpoint): the "no pretraining" baseline')
    parser.add_argument('--data', required=True,
                        help='config with labelled train_dataloader and '
                        'test_dataloader')
    parser.add_argument('--k', type=int, default=20)
    parser.add_argument('--temperature', type=float, default=0.07)
    parser.add_argument('--probe-epochs', type=int, default=90)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--out', help='JSON to write')
    args = parser.parse_args(argv)
    if (args.checkpoint is None) == (not args.random_init):
        parser.error('give a CHECKPOINT or --random-init (one of them)')
    for path in (args.config, args.data, args.checkpoint):
        if path is not None and not osp.isfile(path):
            parser.error(f'no such file: {path!r}')
    if args.k < 1 or args.probe_epochs < 1:
        parser.error(f'--k and --probe-epochs must be >= 1, got {args.k} '
                     f'and {args.probe_epochs}')
    return args


def main(argv=None):
    args = parse_args(argv)
    sys.path.insert(0, ROOT)
    from mmengine.config import Config
    from mmengine.registry import DefaultScope
    from mmengine.runner import Runner

    import randsac_mm.mmpretrain  # noqa: F401  (registers)
    from randsac_mm.evaluation import evaluate_frozen
    from randsac_mm.utils.run_config import build_model

    cfg = Config.fromfile(args.config)
    data = Config.fromfile(args.data)
    model = build_model(cfg, args.checkpoint, seed=args.seed)
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        loaders = [Runner.build_dataloader(loader, seed=args.seed)
                   for loader in (data.train_dataloader,
                                  data.test_dataloader)]
    result = evaluate_frozen(model, *loaders, k=args.k,
                             temperature=args.temperature,
                             probe_epochs=args.probe_epochs, seed=args.seed)
    result.update(config=args.config, checkpoint=args.checkpoint,
                  data=args.data, k=args.k, temperature=args.temperature,
                  probe_epochs=args.probe_epochs)
    out = args.out or (args.checkpoint + '.frozen_eval.json'
                       if args.checkpoint else 'frozen_eval.json')
    with open(out, 'w') as f:
        json.dump(result, f, indent=2)
    print(f"linear probe {result['linear']:.2f}%  k-NN (k={args.k}) "
          f"{result['knn']:.2f}%  ({result['feature_dim']}-d features)")
    print(f'wrote {out}')


if __name__ == '__main__':
    main()
