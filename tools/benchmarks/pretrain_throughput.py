"""Pretraining throughput of RandSAC against a reference and MAE: one
training iteration timed per setting, precision and variant
(``experiments.throughput`` says what each variant is and how time,
memory and FLOP/s are measured).

    python tools/benchmarks/pretrain_throughput.py \
        [--settings vit-t-cifar vit-s-in100 vit-b-in1k] \
        [--dtypes fp32 bf16] [--variants ...] [--compile] \
        [--out work_dirs/benchmarks/pretrain_throughput.json]
"""
import argparse
import os.path as osp
import sys

REPO_ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
# This tool's code is in the checkout's experiments/ package, not in the
# installed randsac_mm (docs/architecture.md): run it from a checkout.
sys.path.insert(0, REPO_ROOT)


def main(argv=None):
    from experiments.throughput import (
        DEFAULT_VARIANTS,
        SETTINGS,
        VARIANTS,
        run_benchmark,
    )
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--settings', nargs='+', choices=list(SETTINGS),
                        default=list(SETTINGS))
    parser.add_argument('--dtypes', nargs='+', choices=('fp32', 'bf16'),
                        default=['fp32', 'bf16'])
    parser.add_argument('--variants', nargs='+', choices=list(VARIANTS),
                        default=list(DEFAULT_VARIANTS))
    parser.add_argument('--compile', action='store_true',
                        help='also time ours-compile (torch.compile)')
    parser.add_argument('--batch-size', type=int,
                        help='override every setting\'s batch size')
    parser.add_argument('--iters', type=int, default=3)
    parser.add_argument('--repeats', type=int, default=5)
    parser.add_argument('--warmup', type=int, default=2)
    parser.add_argument('--passes', type=int, default=1,
                        help='times the list of variants is run, '
                        'interleaved (rounds of all passes are pooled)')
    parser.add_argument('--peak-tflops', type=float,
                        help='peak FLOP/s of the device for the dtype '
                        '(e.g. 989 for an H100 SXM in bf16), for MFU')
    parser.add_argument(
        '--out', default='work_dirs/benchmarks/pretrain_throughput.json')
    args = parser.parse_args(argv)
    for name in ('iters', 'repeats', 'passes'):
        if getattr(args, name) < 1:
            parser.error(f'--{name} must be at least 1, got '
                         f'{getattr(args, name)}')
    if args.warmup < 0:
        parser.error(f'--warmup must be at least 0, got {args.warmup}')
    run_benchmark(args)


if __name__ == '__main__':
    main()
