"""The paper's ablations at CPU scale, on real images: a small-scale study.

Each variant is a config under ``configs/small_scale/`` (its header cites
the paper row it scales down). For every variant and seed the study
pretrains it (mmengine's Runner, as ``tools/train.py`` would), then
evaluates the frozen encoder on labelled Fashion-MNIST with
``randsac_mm.evaluation``: the paper's linear probe (BatchNorm without
affine + linear layer, on cached features; SGD, see linear_probe.py) and a
weighted cosine k-NN (k=20). ``random`` is the same encoder initialised and not trained.

It writes to ``--work-dir``: ``study.json`` (every run and the summary),
``study.md`` (the table with the paper's CIFAR10 numbers beside ours, and
one line per ordering of the paper saying whether it holds here) and
``study.png`` (bars with error bars). Runs already in ``runs/`` are reused,
so an interrupted study continues where it stopped.

    python tools/benchmarks/small_scale_study.py            # ~1.6 h, 2 cores
    python tools/benchmarks/small_scale_study.py --quick    # the test's run
"""
import argparse
import json
import os
import os.path as osp
import statistics
import sys
import time

HERE = osp.dirname(osp.abspath(__file__))
ROOT = osp.dirname(osp.dirname(HERE))
CONFIGS = osp.join(ROOT, 'configs', 'small_scale')
EVAL_DATA = osp.join(ROOT, 'configs', '_base_', 'datasets', 'fashion-mnist.py')

# name: (config under configs/small_scale, or None: the untrained encoder
# of the base; paper row; the paper's CIFAR10 linear probe, %).
VARIANTS = {
    'random': (None, 'no pretraining', None),
    'patch-raster': ('randsac_vit-mini-p4_patch-raster_fashion-mnist.py',
                     'Serialization, patch-raster (ViT-T)', 55.53),
    'patch-random': ('randsac_vit-mini-p4_patch-random_fashion-mnist.py',
                     'Serialization, patch-random (ViT-T)', 75.53),
    'square-m2': ('randsac_vit-mini-p4_square-m2_fashion-mnist.py',
                  'Square size M=2 (ViT-T)', 81.38),
    'square-16to4': ('randsac_vit-mini-p4_square-m2-16to4_fashion-mnist.py',
                     'Hierarchy, square 16 -> 4 (ViT-T)', 82.46),
    'blob-k7': ('randsac_vit-mini-p4_blob-k7_fashion-mnist.py',
                'Segment Coherence, K=7 (ViT-T)', 82.52),
    'blob-k7-shuffle': ('randsac_vit-mini-p4_blob-k7-shuffle_fashion-mnist.py',
                        'Segment Coherence, Shuffle K=7 (ViT-T)', 76.69),
    'blob-7to3': ('randsac_vit-mini-p4_blob-7to3_fashion-mnist.py',
                  'Hierarchy, blob 7 -> 3 (ViT-T)', 82.71),
    'two-stream': ('randsac_vit-mini-p4_blob-11to5_two-stream_fashion-mnist.py',
                   'Architectures, two-stream, blob 11 -> 5 (ViT-T)', 84.4),
    'transformer': (
        'randsac_vit-mini-p4_blob-11to5_transformer_fashion-mnist.py',
        'Architectures, transformer, blob 11 -> 5 (ViT-T)', 88.0),
    'transformer-skip': (
        'randsac_vit-mini-p4_blob-11to5_transformer-skip_fashion-mnist.py',
        'Architectures, transformer-skip, blob 11 -> 5 (ViT-T)', 89.5),
    'mae': ('mae_vit-mini-p4_fashion-mnist.py',
            'Low-data, MAE, decoder matched (ViT-S)', 87.3),
}
# The paper's findings as (worse, better, where the paper shows it).
ORDERINGS = [
    ('random', 'square-m2', 'pretraining helps at all'),
    ('patch-raster', 'patch-random',
     'Table "Serialization": random order beats raster (55.53 < 75.53)'),
    ('patch-random', 'square-m2',
     'Table "Segments": squares beat single patches (75.53 < 81.38)'),
    ('patch-random', 'blob-k7',
     'Table "Segments": blobs beat single patches (75.53 < 82.52)'),
    ('blob-k7-shuffle', 'blob-k7',
     'Table "Segment Coherence": coherent beats shuffled (76.69 < 82.52)'),
    ('patch-random', 'blob-k7-shuffle',
     'Table "Segment Coherence": shuffled still beats patch-random '
     '(75.53 < 76.69)'),
    ('square-m2', 'square-16to4',
     'Table "Hierarchical Segment Prediction": square 16 -> 4 beats flat 16 '
     '(81.38 < 82.46)'),
    ('blob-k7', 'blob-7to3',
     'Table "Hierarchical Segment Prediction": blob 7 -> 3 beats flat 7 '
     '(82.52 < 82.71)'),
    ('two-stream', 'transformer',
     'Table "Performance of Architectures": transformer beats two-stream '
     '(84.4 < 88.0)'),
    ('transformer', 'transformer-skip',
     'Table "Performance of Architectures": the skip layer helps '
     '(88.0 < 89.5)'),
    ('mae', 'transformer-skip',
     'Table "Low-data pre-training": RandSAC beats MAE (87.3 < 93.9, '
     'ViT-S)'),
]
QUICK = dict(variants=['random', 'patch-raster', 'square-m2'], seeds=[0],
             epochs=1, train_images=256, test_images=512, probe_epochs=10)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--variants', nargs='+', choices=list(VARIANTS),
                        default=list(VARIANTS))
    parser.add_argument('--seeds', nargs='+', type=int, default=[0, 1, 2])
    parser.add_argument('--epochs', type=int, default=None,
                        help='pretraining epochs (default: the configs\' 5)')
    parser.add_argument('--train-images', type=int, default=None,
                        help='pretraining and probe images (default: the '
                        'configs\' 6000)')
    parser.add_argument('--test-images', type=int, default=None,
                        help='test images (default: all 10,000)')
    parser.add_argument('--probe-epochs', type=int, default=90,
                        help='linear probe epochs on the cached features')
    parser.add_argument('--data-root', default=None,
                        help='folder of the Fashion-MNIST IDX files '
                        '(default: the configs\', /usr/share/datasets/'
                        'fashion-mnist)')
    parser.add_argument('--work-dir', default='work_dirs/small_scale_study')
    parser.add_argument('--quick', action='store_true',
                        help='3 variants, 1 seed, 1 epoch on 256 images: '
                        'what the test suite runs')
    args = parser.parse_args(argv)
    if args.quick:
        for key, value in QUICK.items():
            setattr(args, key, value)
    for name in ('epochs', 'train_images', 'test_images', 'probe_epochs'):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f'--{name.replace("_", "-")} must be >= 1, got '
                         f'{value}')
    if len(set(args.seeds)) != len(args.seeds):
        parser.error(f'--seeds must be distinct, got {args.seeds}')
    return args


def variant_config(name, args):
    """The variant's pretraining config with the study's overrides."""
    from mmengine.config import Config

    from randsac_mm.utils.run_config import set_epochs
    config = VARIANTS[name][0] or 'randsac_vit-mini-p4_square-m2_' \
        'fashion-mnist.py'  # random: the (untrained) encoder of every variant
    cfg = Config.fromfile(osp.join(CONFIGS, config))
    dataset = cfg.train_dataloader.dataset
    if args.train_images:
        dataset.indices = args.train_images
    if args.data_root:
        dataset.data_root = args.data_root
    if args.epochs:
        set_epochs(cfg, args.epochs)
    if args.quick:  # so that a run of a few iterations logs several losses
        cfg.default_hooks.logger.interval = 1
    return cfg


def eval_loaders(args):
    """Labelled train (the pretraining images) and test loaders."""
    from mmengine.config import Config
    from mmengine.registry import DefaultScope
    from mmengine.runner import Runner
    data = Config.fromfile(EVAL_DATA)
    loaders = []
    for loader, count in ((data.train_dataloader, args.train_images),
                          (data.test_dataloader, args.test_images)):
        if count:
            loader.dataset.indices = count
        if args.data_root:
            loader.dataset.data_root = args.data_root
        with DefaultScope.overwrite_default_scope('mmpretrain'):
            loaders.append(Runner.build_dataloader(loader, seed=0))
    return loaders


def run_one(name, seed, args, loaders):
    """Pretrains one variant with one seed and evaluates it."""
    from mmengine.runner import Runner

    from randsac_mm.evaluation import evaluate_frozen
    from randsac_mm.utils.run_config import build_model
    start = time.time()
    cfg = variant_config(name, args)
    cfg.randomness = dict(seed=seed)
    cfg.work_dir = osp.join(args.work_dir, 'runs', f'{name}_seed{seed}')
    cfg.experiment_name = f'{name}_seed{seed}'
    if VARIANTS[name][0] is None:
        model = build_model(cfg, seed=seed)
        losses = []
    else:
        runner = Runner.from_cfg(cfg)
        runner.train()
        model = runner.model
        losses = logged_losses(runner)
    minutes = (time.time() - start) / 60
    metrics = evaluate_frozen(model, *loaders, probe_epochs=args.probe_epochs,
                              seed=seed)
    return dict(variant=name, seed=seed, **metrics,
                first_loss=losses[0] if losses else None,
                final_loss=losses[-1] if losses else None,
                pretrain_minutes=minutes,
                minutes=(time.time() - start) / 60)


def logged_losses(runner):
    path = osp.join(runner.log_dir, 'vis_data', 'scalars.json')
    with open(path) as f:
        return [json.loads(line)['loss'] for line in f if '"loss"' in line]


def summarize(runs, variants):
    """Mean and standard deviation over seeds, per variant and metric."""
    summary = {}
    for name in variants:
        mine = [r for r in runs if r['variant'] == name]
        if not mine:
            continue
        entry = dict(seeds=[r['seed'] for r in mine], paper_linear=VARIANTS[
            name][2], paper_row=VARIANTS[name][1],
                     config=VARIANTS[name][0])
        for metric in ('linear', 'knn'):
            values = [r[metric] for r in mine]
            entry[metric] = values
            entry[f'{metric}_mean'] = statistics.fmean(values)
            entry[f'{metric}_std'] = statistics.stdev(values) \
                if len(values) > 1 else 0.0
        summary[name] = entry
    return summary


def ordering_verdicts(summary):
    """One verdict per paper ordering whose two variants both ran: holds
    when the better variant's mean linear probe is higher; 'within noise'
    when the gap is smaller than the larger of the two standard
    deviations."""
    verdicts = []
    for worse, better, paper in ORDERINGS:
        if worse not in summary or better not in summary:
            continue
        low, high = summary[worse], summary[better]
        gap = high['linear_mean'] - low['linear_mean']
        noise = max(low['linear_std'], high['linear_std'])
        knn_gap = high['knn_mean'] - low['knn_mean']
        verdict = 'holds' if gap > 0 else 'does not hold'
        if abs(gap) <= noise:
            verdict += ' (within noise)'
        verdicts.append(dict(worse=worse, better=better, paper=paper,
                             gap=gap, noise=noise, knn_gap=knn_gap,
                             verdict=verdict))
    return verdicts


def markdown(summary, verdicts, args):
    lines = [
        '| variant | paper row | paper CIFAR10 LIN | ours LIN | ours k-NN |',
        '| --- | --- | ---: | ---: | ---: |',
    ]
    for name, s in summary.items():
        paper = f"{s['paper_linear']:.2f}" if s['paper_linear'] else '-'
        lines.append(
            f"| {name} | {s['paper_row']} | {paper} | "
            f"{s['linear_mean']:.2f} ± {s['linear_std']:.2f} | "
            f"{s['knn_mean']:.2f} ± {s['knn_std']:.2f} |")
    lines += ['', f'Mean ± standard deviation over seeds {args.seeds}.', '',
              '| paper ordering | ours: LIN gap (k-NN gap) | at this scale |',
              '| --- | ---: | --- |']
    for v in verdicts:
        lines.append(f"| {v['worse']} < {v['better']}: {v['paper']} | "
                     f"{v['gap']:+.2f} ({v['knn_gap']:+.2f}) | "
                     f"{v['verdict']} |")
    return '\n'.join(lines) + '\n'


def bar_chart(summary, path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    import numpy as np
    names = list(summary)
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(names) + 2), 4))
    for offset, metric, label in ((-0.2, 'linear', 'linear probe'),
                                  (0.2, 'knn', 'k-NN (k=20)')):
        ax.bar(x + offset, [summary[n][f'{metric}_mean'] for n in names],
               0.4, yerr=[summary[n][f'{metric}_std'] for n in names],
               capsize=3, label=label)
    low = min(min(s['linear_mean'], s['knn_mean']) for s in summary.values())
    high = max(max(s['linear_mean'], s['knn_mean']) for s in summary.values())
    ax.set_ylim(max(0, low - 5), min(100, high + 3))
    ax.set_xticks(x, names, rotation=35, ha='right')
    ax.set_ylabel('Fashion-MNIST test top-1 (%)')
    ax.set_title('RandSAC small-scale study: frozen ViT-mini/4 features '
                 '(mean ± std over seeds)', fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(axis='y', alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    args = parse_args(argv)
    sys.path.insert(0, ROOT)
    import randsac_mm.mmpretrain  # noqa: F401  (registers)
    os.makedirs(osp.join(args.work_dir, 'runs'), exist_ok=True)
    loaders = eval_loaders(args)
    settings = {k: getattr(args, k) for k in (
        'epochs', 'train_images', 'test_images', 'probe_epochs', 'data_root')}
    runs = []
    total = len(args.variants) * len(args.seeds)
    for name in args.variants:
        for seed in args.seeds:
            cache = osp.join(args.work_dir, 'runs', f'{name}_seed{seed}.json')
            run = None
            if osp.exists(cache):
                with open(cache) as f:
                    run = json.load(f)
                if run.get('settings') != settings:  # another study's run
                    run = None
            if run is None:
                run = dict(run_one(name, seed, args, loaders),
                           settings=settings)
                with open(cache, 'w') as f:
                    json.dump(run, f, indent=2)
            runs.append(run)
            print(f'[study {len(runs)}/{total}] {name} seed {seed}: linear '
                  f"{run['linear']:.2f}%, k-NN {run['knn']:.2f}% "
                  f"({run['minutes']:.1f} min)", flush=True)
    summary = summarize(runs, args.variants)
    verdicts = ordering_verdicts(summary)
    table = markdown(summary, verdicts, args)
    with open(osp.join(args.work_dir, 'study.json'), 'w') as f:
        json.dump(dict(command=' '.join(sys.argv), seeds=args.seeds,
                       settings=settings,
                       summary=summary, orderings=verdicts, runs=runs), f,
                  indent=2)
    with open(osp.join(args.work_dir, 'study.md'), 'w') as f:
        f.write(table)
    bar_chart(summary, osp.join(args.work_dir, 'study.png'))
    print('\n' + table)
    print(f'wrote {args.work_dir}/study.json, study.md, study.png '
          f"({sum(r['minutes'] for r in runs):.0f} min of runs)")


if __name__ == '__main__':
    main()
