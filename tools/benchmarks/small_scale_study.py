"""The paper's ablations at CPU scale, on real images: a small-scale study
(``experiments.study`` says what it runs and writes).

    python tools/benchmarks/small_scale_study.py            # 12 variants,
        # 3 seeds, 5 epochs: about 1.6 h on 2 cores
    python tools/benchmarks/small_scale_study.py --curve    # training length:
        # 7 variants, 3 seeds, 30 epochs read out at 5/10/20/30 with three
        # readouts: about 8.5 h on one core
    python tools/benchmarks/small_scale_study.py --gpu-study  # the curve's
        # variants and readouts on all 60,000 images, 5 epochs, one seed, on
        # CUDA: about 15 min on one H100 (estimated, not yet run on a GPU)
    python tools/benchmarks/small_scale_study.py --quick    # the test's run

Runs already in --work-dir are reused and interrupted ones resume, so a
study may stop and continue; ``--report-only`` reports the runs recorded so
far without training, and reads no data. The study runs on the CPU unless
``--device cuda`` (or ``--gpu-study``) asks for the GPU, and then stops
(exit code 2) if CUDA cannot be used, never falling back to the CPU.
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

REPO_ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
# This tool's code is in the checkout's experiments/ package, not in the
# installed randsac_mm (docs/architecture.md): run it from a checkout.
sys.path.insert(0, REPO_ROOT)

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
# --gpu-study: the curve's variants and readouts pretrained on all 60,000
# training images (4690 steps: 10x the ablation table's, 1.7x the CPU
# curve's), sized for one H100 in about 15 minutes. An estimate, not yet
# measured on a GPU: see docs/small_scale_study.md, "On a GPU". One seed
# (--seeds 0 1 2 adds as much again per seed, reusing seed 0); the probes
# keep the CPU studies' 6000 labelled images, as they train on the CPU,
# where an attentive probe on 60,000 would take minutes per checkpoint.
GPU_STUDY = dict(variants=CURVE['variants'], readouts=CURVE['readouts'],
                 seeds=[0], epochs=5, train_images=60000, probe_images=6000,
                 device='cuda', work_dir='work_dirs/small_scale_gpu')


def parse_args(argv=None):
    """The arguments, with the preset's values where none was given (so
    ``--gpu-study --seeds 0 1 2`` runs three seeds), and the parser.

    Defaults left None here are StudySettings' own (seeds 0 1 2, 90 probe
    epochs, ...), except ``device``, resolved to 'cpu' here.
    """
    from experiments.study import QUICK, READOUT_NAMES, VARIANTS
    from randsac_mm.apis.device import DEVICES
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--variants', nargs='+', choices=list(VARIANTS),
                        help='the ablations run, each a config of '
                        'configs/small_scale; None: the 12 of the table')
    parser.add_argument('--seeds', nargs='+', type=int,
                        help='one run per variant and seed; None: 0 1 2')
    parser.add_argument('--epochs', type=positive_int,
                        help="pretraining epochs; None: the configs' 5")
    parser.add_argument('--eval-epochs', type=positive_int, nargs='+',
                        help="epochs whose checkpoints are read out, the last"
                        " being the run's length: a learning curve from one "
                        'run per seed; None: the last epoch')
    parser.add_argument('--probe', dest='readouts', nargs='+',
                        choices=list(READOUT_NAMES),
                        help='readouts; None: linear knn')
    parser.add_argument('--train-images', type=positive_int,
                        help="pretraining images, and the probes' unless "
                        "--probe-images; None: the configs' 6000")
    parser.add_argument('--test-images', type=positive_int,
                        help='test images; None: all 10,000')
    parser.add_argument('--probe-images', type=positive_int,
                        help='labelled training images the probes train on '
                        'and the k-NN searches; None: --train-images')
    parser.add_argument('--probe-epochs', type=positive_int,
                        help='probe epochs on the cached features; None: 90')
    parser.add_argument('--data-root',
                        help='folder of the Fashion-MNIST IDX files; None: '
                        "the configs', /usr/share/datasets/fashion-mnist")
    parser.add_argument('--work-dir',
                        help='folder of the runs and the report; None: '
                        "the preset's, else work_dirs/small_scale_study")
    parser.add_argument('--device', choices=DEVICES,
                        help='None or cpu (any GPU is hidden): float32 '
                        'pretraining in the main process; cuda: bf16 '
                        'pretraining with dataloader workers and the features'
                        ' extracted on the GPU (the probes train on the CPU),'
                        ' or exit code 2 if CUDA cannot be used')
    parser.add_argument('--report-only', action='store_true',
                        help='train and evaluate nothing: write the report '
                        'of the runs already recorded in --work-dir (a '
                        'study under way)')
    add_debug_arg(parser)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--quick', action='store_true',
                      help='3 variants, 1 seed, 1 epoch on 256 images: what '
                      'the test suite runs')
    mode.add_argument('--curve', action='store_true',
                      help='the training-length study: ' + ', '.join(
                          f'{k}={v}' for k, v in CURVE.items()))
    mode.add_argument('--gpu-study', action='store_true',
                      help='the curve on all images, for one H100 in about '
                      '15 minutes (an estimate): ' + ', '.join(
                          f'{k}={v}' for k, v in GPU_STUDY.items()))
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else CURVE if args.curve else \
        GPU_STUDY if args.gpu_study else {}
    for key, value in preset.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.device = args.device or 'cpu'
    return args, parser


def main(argv=None):
    args, parser = parse_args(argv)
    # Before anything asks torch for GPUs (importing mmengine does). A
    # report trains nothing, so it needs no GPU: --report-only hides them
    # and still reports the runs recorded for --device.
    from randsac_mm.apis.device import NoUsableCuda, use_device
    try:
        use_device('cpu' if args.report_only else args.device)
    except NoUsableCuda as e:
        parser.exit(2, f'{parser.prog}: error: argument --device: {e}\n')
    import randsac_mm.registration  # noqa: F401  (registers)
    from experiments.study import StudySettings, run_study
    from experiments.study_report import markdown
    # A setting out of range: StudySettings' ValueError, one line (run_tool).
    settings = StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA,
        **{k: getattr(args, k) for k in (
            'variants', 'seeds', 'epochs', 'eval_epochs', 'readouts',
            'train_images', 'test_images', 'probe_images', 'probe_epochs',
            'data_root', 'work_dir', 'device', 'quick', 'report_only')
            if getattr(args, k) is not None})
    result = run_study(settings, log=lambda line: print(line, flush=True))
    print('\n' + markdown(result))
    outputs = 'study.json, study.md, study.png' + (
        ', curve.png' if len(settings.eval_epochs) > 1 else '')
    print(f'wrote {settings.work_dir}/{{{outputs}}} '
          f"({result['pretrain_minutes']:.0f} min of pretraining on "
          f'{settings.device})')


if __name__ == '__main__':
    run_tool(main)
