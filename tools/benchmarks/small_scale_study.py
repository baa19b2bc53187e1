"""The paper's ablations at CPU scale, on real images: a small-scale study
(``randsac_mm.apis.study`` says what it runs and writes).

    python tools/benchmarks/small_scale_study.py            # 12 variants,
        # 3 seeds, 5 epochs: about 1.6 h on 2 cores
    python tools/benchmarks/small_scale_study.py --curve    # training length:
        # 7 variants, 3 seeds, 30 epochs read out at 5/10/20/30 with three
        # readouts: about 8.5 h on one core
    python tools/benchmarks/small_scale_study.py --quick    # the test's run

Runs already in --work-dir are reused and interrupted ones resume, so a
study may stop and continue; ``--report-only`` reports the runs recorded so
far without training.
"""
import argparse
import os.path as osp

from randsac_mm.apis.cli import positive_int

REPO_ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
CONFIGS = osp.join(REPO_ROOT, 'configs', 'small_scale')
EVAL_DATA = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets',
                     'fashion-mnist.py')
# --curve: does the gap between segment variants open with training
# length? The variants of the paper's segment orderings, and MAE with the
# RandSAC row it is compared with.
CURVE = dict(variants=['random', 'patch-random', 'square-m2', 'blob-k7',
                       'blob-k7-shuffle', 'transformer-skip', 'mae'],
             epochs=30, eval_epochs=[5, 10, 20, 30],
             readouts=['linear', 'knn', 'attentive'],
             work_dir='work_dirs/small_scale_curve')


def parse_args(argv=None):
    from randsac_mm.apis.study import QUICK, READOUT_NAMES, VARIANTS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--variants', nargs='+', choices=list(VARIANTS))
    parser.add_argument('--seeds', nargs='+', type=int, default=[0, 1, 2])
    parser.add_argument('--epochs', type=positive_int,
                        help="pretraining epochs (default: the configs' 5)")
    parser.add_argument('--eval-epochs', type=int, nargs='+',
                        help="epochs whose checkpoints are read out, the last"
                        " being the run's length: a learning curve from one "
                        'run per seed (default: the last epoch)')
    parser.add_argument('--probe', dest='readouts', nargs='+',
                        choices=list(READOUT_NAMES),
                        help='readouts (default: linear knn)')
    parser.add_argument('--train-images', type=positive_int,
                        help="pretraining and probe images (default: the "
                        "configs' 6000)")
    parser.add_argument('--test-images', type=positive_int,
                        help='test images (default: all 10,000)')
    parser.add_argument('--probe-epochs', type=positive_int, default=90,
                        help='probe epochs on the cached features')
    parser.add_argument('--data-root',
                        help='folder of the Fashion-MNIST IDX files (default:'
                        " the configs', /usr/share/datasets/fashion-mnist)")
    parser.add_argument('--work-dir')
    parser.add_argument('--report-only', action='store_true',
                        help='train and evaluate nothing: write the report '
                        'of the runs already recorded in --work-dir (a '
                        'study under way)')
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--quick', action='store_true',
                      help='3 variants, 1 seed, 1 epoch on 256 images: what '
                      'the test suite runs')
    mode.add_argument('--curve', action='store_true',
                      help='the training-length study: ' + ', '.join(
                          f'{k}={v}' for k, v in CURVE.items()))
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else CURVE if args.curve else {}
    for key, value in preset.items():
        if getattr(args, key, None) in (None, parser.get_default(key)):
            setattr(args, key, value)
    return args, parser


def main(argv=None):
    args, parser = parse_args(argv)
    import randsac_mm.registration  # noqa: F401  (registers)
    from randsac_mm.apis.study import StudySettings, run_study
    from randsac_mm.apis.study_report import markdown
    try:
        settings = StudySettings(
            configs=CONFIGS, eval_data=EVAL_DATA,
            **{k: getattr(args, k) for k in (
                'variants', 'seeds', 'epochs', 'eval_epochs', 'readouts',
                'train_images', 'test_images', 'probe_epochs', 'data_root',
                'work_dir', 'quick', 'report_only')
                if getattr(args, k) is not None})
    except ValueError as e:
        parser.error(str(e))
    result = run_study(settings, log=lambda line: print(line, flush=True))
    print('\n' + markdown(result))
    outputs = 'study.json, study.md, study.png' + (
        ', curve.png' if len(settings.eval_epochs) > 1 else '')
    print(f'wrote {settings.work_dir}/{{{outputs}}} '
          f"({result['pretrain_minutes']:.0f} min of pretraining)")


if __name__ == '__main__':
    main()
