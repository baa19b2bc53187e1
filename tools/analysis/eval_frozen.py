"""Frozen-encoder readouts of any checkpoint: the paper's linear probe,
k-NN, an attentive probe and a linear probe of every layer.

The encoder is the pretraining config's own backbone (RandSAC, its
two-stream variant through all its layers, mmpretrain's MAE, ...), so any
checkpoint of that config evaluates without an evaluation config of
matching shape. Labelled data come from a data config with a
``train_dataloader`` and a ``test_dataloader`` (e.g.
``configs/_base_/datasets/mnist5k.py``, ``fashion-mnist.py``, or one
written for training a classifier, such as ``digits.py``): the training
images go through the test loader's pipeline, unshuffled (no
augmentation), and loaders with or without
``collate_fn=dict(type='default_collate')`` give the same features.

    python tools/analysis/eval_frozen.py CONFIG CHECKPOINT --data DATA_CONFIG
        [--probe linear knn attentive layers] [--k 20] [--temperature 0.07]
        [--probe-epochs 90] [--probe-seeds 0 1 2 3 4] [--out result.json]
    python tools/analysis/eval_frozen.py CONFIG --random-init --data ...
    python tools/analysis/eval_frozen.py --pixels --data DATA_CONFIG

It shows the progress of each step on stderr (features per batch, probes
per epoch), prints the top-1 accuracies of the readouts asked for
(``--probe``; ``randsac_mm.evaluation`` describes each) on stdout and
writes them as JSON (default: next to the checkpoint,
``<checkpoint>.frozen_eval.json``; with ``--random-init``,
``work_dirs/<config name>/random_init.frozen_eval.json``). With
``--probe-seeds`` the probes are trained once per seed on features
extracted once: the accuracies are the means, and the JSON gives each
seed's and the standard deviation (``probe_seed_sd``). ``--train-images``
and ``--test-images`` take images spread evenly over each data set, so
that a data set sorted by class (MNIST5k) keeps every class.
``--pixels`` reads out the data's own pixels instead of an encoder: the
raw-pixel reference line of a readout table
(``randsac_mm.evaluation.evaluate_pixels``).
"""
import os.path as osp

from randsac_mm.cli.args import positive_float, positive_int, seed_value
from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CHECKPOINT, CONFIG, OUTPUT_FILE
from randsac_mm.cli.run_tool import run_tool
from randsac_mm.run.config_kinds import require_kind


def parse_args(argv=None):
    from randsac_mm.evaluation.readout_registry import READOUTS, readout_title
    parser = ToolParser(description=__doc__)
    parser.add_path('config', kind=CONFIG, nargs='?',
                    help='the pretraining config the checkpoint was trained '
                    'with (RandSAC, MAE); leave out with --pixels')
    parser.add_path('checkpoint', kind=CHECKPOINT, nargs='?',
                        help='a checkpoint of that config (a .pth that '
                        'training wrote); leave out with --random-init')
    parser.add_argument('--random-init', action='store_true',
                        help='evaluate the config\'s model as initialised '
                        '(no checkpoint): the "no pretraining" baseline')
    parser.add_argument('--pixels', action='store_true',
                        help="read out the data's pixels, no encoder (no "
                        'CONFIG): the raw-pixel reference')
    parser.add_path('--data', kind=CONFIG, required=True,
                        help='data config with labelled train_dataloader '
                        'and test_dataloader')
    parser.add_argument('--k', type=positive_int, default=20,
                        help='neighbours of the k-NN (at most the training '
                        'images)')
    parser.add_argument('--temperature', type=positive_float, default=0.07,
                        help='sharpness of the k-NN\'s vote weights (> 0)')
    parser.add_argument('--probe-epochs', type=positive_int, default=90,
                        help='epochs of the linear and attentive probes')
    parser.add_argument('--train-images', type=positive_int,
                        help='so many training images, spread evenly over '
                        "the data set (None: all of the data config's)")
    parser.add_argument('--test-images', type=positive_int,
                        help='so many test images, spread evenly over the '
                        "data set (None: all of the data config's)")
    parser.add_argument('--probe', nargs='+', default=['linear', 'knn'],
                        choices=tuple(READOUTS),
                        help='readouts: ' + ', '.join(
                            f'{name} ({readout_title(name)})'
                            for name in READOUTS))
    parser.add_argument('--seed', type=seed_value, default=0,
                        help='seeds the probes and a --random-init model')
    parser.add_argument('--probe-seeds', type=seed_value, nargs='+',
                        help='train the probes once per seed on the same '
                        'features and report the mean and the standard '
                        'deviation over the seeds: how much the probe\'s '
                        'own seed moves it (None: once, with --seed)')
    parser.add_path('--out', kind=OUTPUT_FILE, default_from=default_out,
                    help='JSON to write (its folder is made); None: '
                    '<checkpoint>.frozen_eval.json, with --random-init '
                    'work_dirs/<config name>/random_init.frozen_eval.json, '
                    'with --pixels work_dirs/pixels/<data name>.'
                    'frozen_eval.json')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    if args.probe_seeds is not None:
        from randsac_mm.evaluation.probe_seeds import check_probe_seeds
        try:
            check_probe_seeds(args.probe_seeds, name='--probe-seeds')
        except ValueError as e:
            parser.error(str(e))
    if args.pixels:
        from randsac_mm.evaluation import pixel_readouts
        if args.config or args.random_init:
            parser.error('argument --pixels: reads no encoder; leave out '
                         'CONFIG, CHECKPOINT and --random-init')
        others = [r for r in args.probe if r not in pixel_readouts()]
        if others:
            parser.error(f'argument --probe: {others} read an encoder\'s '
                         'tokens or layers; with --pixels give some of '
                         f'{list(pixel_readouts())}')
    elif args.config is None:
        parser.error('give CONFIG (and a CHECKPOINT or --random-init), or '
                     '--pixels')
    elif (args.checkpoint is None) == (not args.random_init):
        parser.error('give a CHECKPOINT or --random-init (one of them)')
    return args


def default_out(args):
    """Where the JSON goes without ``--out``: next to the checkpoint; for
    ``--random-init``, in the config's ``work_dirs`` folder (mmengine's
    default work dir); for ``--pixels``, work_dirs/pixels/<data name>."""
    if args.checkpoint:
        return args.checkpoint + '.frozen_eval.json'
    if args.pixels:
        name = osp.splitext(osp.basename(args.data))[0]
        return osp.join('work_dirs', 'pixels', f'{name}.frozen_eval.json')
    if args.config is None:  # refused after (parse_args)
        return None
    name = osp.splitext(osp.basename(args.config))[0]
    return osp.join('work_dirs', name, 'random_init.frozen_eval.json')


def main(argv=None):
    args = parse_args(argv)  # and its paths checked: nothing imported yet
    import randsac_mm.registration  # noqa: F401  (registers)
    from randsac_mm.apis import build_model
    from randsac_mm.cli.config_file import read_config
    from randsac_mm.evaluation import (
        ProgressBars,
        accuracy_readouts,
        evaluate_frozen,
        evaluate_pixels,
        labelled_loaders,
        load_weights,
        quiet_mmengine_info,
        readout_title,
    )

    # Everything a mistake can be in, checked before the work.
    if not args.pixels:
        cfg = read_config(args.config)
        trained_with = 'give the pretraining config the checkpoint was ' \
            'trained with'
        require_kind(cfg, ('pretraining', ), 'config', args.config,
                     hint=dict(data='give the pretraining config; the data '
                               'config goes to --data',
                               classifier=trained_with,
                               segmentation=trained_with,
                               detection=trained_with))
    loaders = labelled_loaders(
        read_config(args.data, '--data'), args.train_images,
        args.test_images, seed=args.seed, spread=True, unaugmented=True,
        names=dict(data_config='--data', train_images='--train-images',
                   test_images='--test-images'))
    train_count = len(loaders[0].dataset)
    if 'knn' in args.probe and args.k > train_count:
        raise UserError(f'--k: {args.k} neighbours, but there are '
                        f'{train_count} training images; give --k at most '
                        f'{train_count}')
    options = dict(seed=args.seed, readouts=tuple(args.probe),
                   probe_seeds=args.probe_seeds, k=args.k,
                   temperature=args.temperature,
                   probe_epochs=args.probe_epochs, progress=ProgressBars())
    if args.pixels:
        result = evaluate_pixels(*loaders, **options)
    else:
        # The no-pretraining baseline is the model as initialised with
        # --seed. Built without mmengine's line per parameter.
        with quiet_mmengine_info():
            model = build_model(cfg, seed=args.seed)
            if args.checkpoint:
                load_weights(model, args.checkpoint, 'checkpoint',
                             args.config)
        result = evaluate_frozen(model, *loaders, **options)
    result.update(pixels=args.pixels, config=args.config,
                  checkpoint=args.checkpoint,
                  data=args.data, k=args.k, temperature=args.temperature,
                  probe_epochs=args.probe_epochs,
                  train_images=train_count,
                  test_images=len(loaders[1].dataset))
    names = {r: readout_title(r, args.k) for r in accuracy_readouts()}
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
    from randsac_mm.checkpoint import write_json
    print(f'wrote {write_json(args.out, result)}')


if __name__ == '__main__':
    run_tool(main)
