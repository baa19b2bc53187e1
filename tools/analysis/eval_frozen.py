"""Frozen-encoder readouts of any checkpoint: the paper's linear probe,
k-NN, an attentive probe and a linear probe of every layer.

The encoder is the pretraining config's own backbone (RandSAC, its
two-stream variant through all its layers, mmpretrain's MAE, ...), so any
checkpoint of that config evaluates without an evaluation config of
matching shape. Labelled data come from a data config with a
``train_dataloader`` and a ``test_dataloader`` without augmentation (e.g.
``configs/_base_/datasets/fashion-mnist.py``, ``mnist5k.py``).

    python tools/analysis/eval_frozen.py CONFIG CHECKPOINT --data DATA_CONFIG
        [--probe linear knn attentive layers] [--k 20] [--temperature 0.07]
        [--probe-epochs 90] [--probe-seeds 0 1 2 3 4] [--out result.json]
    python tools/analysis/eval_frozen.py CONFIG --random-init --data ...

It prints the top-1 accuracies of the readouts asked for (``--probe``;
``randsac_mm.evaluation`` describes each) and writes them as JSON
(default: next to the checkpoint, ``<checkpoint>.frozen_eval.json``).
With ``--probe-seeds`` the probes are trained once per seed on features
extracted once: the accuracies are the means, and the JSON gives each
seed's and the standard deviation (``probe_seed_sd``).
"""
import argparse
import json
import os.path as osp

from randsac_mm.apis.cli import positive_int


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
    parser.add_argument('--k', type=positive_int, default=20)
    parser.add_argument('--temperature', type=float, default=0.07)
    parser.add_argument('--probe-epochs', type=positive_int, default=90)
    parser.add_argument('--train-images', type=positive_int,
                        help='the first so many training images (default: '
                        "the data config's)")
    parser.add_argument('--test-images', type=positive_int,
                        help='the first so many test images')
    parser.add_argument('--probe', nargs='+', default=['linear', 'knn'],
                        choices=['linear', 'knn', 'attentive', 'layers'],
                        help='readouts: the linear probe, k-NN, attentive '
                        'probe, linear probe of every layer (default: '
                        'linear knn)')
    parser.add_argument('--seed', type=int, default=0,
                        help='seeds the probes and a --random-init model')
    parser.add_argument('--probe-seeds', type=int, nargs='+',
                        help='train the probes once per seed on the same '
                        'features and report the mean and the standard '
                        'deviation over the seeds: how much the probe\'s '
                        'own seed moves it (default: once, with --seed)')
    parser.add_argument('--out', help='JSON to write')
    args = parser.parse_args(argv)
    if args.probe_seeds is not None:
        from randsac_mm.evaluation.probe_seeds import check_probe_seeds
        try:
            check_probe_seeds(args.probe_seeds, name='--probe-seeds')
        except ValueError as e:
            parser.error(str(e))
    if (args.checkpoint is None) == (not args.random_init):
        parser.error('give a CHECKPOINT or --random-init (one of them)')
    for path in (args.config, args.data, args.checkpoint):
        if path is not None and not osp.isfile(path):
            parser.error(f'no such file: {path!r}')
    return args


def main(argv=None):
    args = parse_args(argv)
    from mmengine.config import Config

    import randsac_mm.registration  # noqa: F401  (registers)
    from randsac_mm.apis import build_model
    from randsac_mm.evaluation import (
        ACCURACY_READOUTS,
        evaluate_frozen,
        labelled_loaders,
        readout_title,
    )
    cfg = Config.fromfile(args.config)
    loaders = labelled_loaders(args.data, args.train_images,
                               args.test_images, seed=args.seed)
    # The no-pretraining baseline is the model as initialised with --seed.
    model = build_model(cfg, args.checkpoint, seed=args.seed)
    result = evaluate_frozen(model, *loaders, seed=args.seed,
                             readouts=tuple(args.probe),
                             probe_seeds=args.probe_seeds,
                             k=args.k, temperature=args.temperature,
                             probe_epochs=args.probe_epochs)
    result.update(config=args.config, checkpoint=args.checkpoint,
                  data=args.data, k=args.k, temperature=args.temperature,
                  probe_epochs=args.probe_epochs)
    names = {r: readout_title(r, args.k) for r in ACCURACY_READOUTS}
    for seed, one in zip(args.probe_seeds or [],
                         result.get('per_probe_seed', [])):
        print(f'probe seed {seed}: ' + '  '.join(
            f'{names[r]} {one[r]:.2f}%' for r in names if r in one))
    spread = result.get('probe_seed_sd')
    print(('mean over the probe seeds: ' if spread else '') + '  '.join(
        f'{names[r]} {result[r]:.2f}%' + (
            f' (sd {spread[r]:.2f})' if spread else '')
        for r in names if r in result) +
        f"  ({result['feature_dim']}-d features)")
    if 'layer_linear' in result:
        print('linear probe per layer: ' + ', '.join(
            f'{i}: {a:.2f}%' for i, a in enumerate(result['layer_linear'],
                                                  start=1)) +
              f"; best: layer {result['best_layer']}")
    out = args.out or (args.checkpoint + '.frozen_eval.json'
                       if args.checkpoint else 'frozen_eval.json')
    with open(out, 'w') as f:
        json.dump(result, f, indent=2)
    print(f'wrote {out}')


if __name__ == '__main__':
    main()
