r"""Pretraining throughput of RandSAC against a reference and MAE: one
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

from randsac_mm.apis.cli import (
    HelpFormatter,
    add_debug_arg,
    non_negative_int,
    positive_float,
    positive_int,
    run_tool,
)

REPO_ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
# This tool's code is in the checkout's experiments/ package, not in the
# installed randsac_mm (docs/architecture.md): run it from a checkout.
sys.path.insert(0, REPO_ROOT)




def parse_args(argv=None):
    from experiments.throughput import DEFAULT_VARIANTS, SETTINGS, VARIANTS
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--settings', nargs='+', choices=list(SETTINGS),
                        default=list(SETTINGS),
                        help='model and data settings, each a pretraining '
                        'config: ' + ', '.join(
                            f'{k} ({v[0]}, batch {v[1]})'
                            for k, v in SETTINGS.items()))
    parser.add_argument('--dtypes', nargs='+', choices=('fp32', 'bf16'),
                        default=['fp32', 'bf16'],
                        help='precisions (bf16: autocast)')
    parser.add_argument('--variants', nargs='+', choices=list(VARIANTS),
                        default=list(DEFAULT_VARIANTS),
                        help='what is timed: ' + '; '.join(
                            f'{k}: {v}' for k, v in VARIANTS.items()
                        ).replace('%', '%%'))
    parser.add_argument('--compile', action='store_true',
                        help='also time ours-compile (torch.compile)')
    parser.add_argument('--batch-size', type=positive_int,
                        help="images per iteration, for every setting; "
                        "None: each setting's (see --settings)")
    parser.add_argument('--iters', type=positive_int, default=3,
                        help='iterations per timed round')
    parser.add_argument('--repeats', type=positive_int, default=5,
                        help='timed rounds per measurement (the median '
                        'counts)')
    parser.add_argument('--warmup', type=non_negative_int, default=2,
                        help='untimed iterations before the rounds')
    parser.add_argument('--passes', type=positive_int, default=1,
                        help='times the list of variants is run, '
                        'interleaved (rounds of all passes are pooled)')
    parser.add_argument('--peak-tflops', type=positive_float,
                        help='peak FLOP/s of the device for the dtype '
                        '(e.g. 989 for an H100 SXM in bf16), for MFU; '
                        "None: no MFU ('-')")
    parser.add_argument(
        '--out', default='work_dirs/benchmarks/pretrain_throughput.json',
        help='JSON file for the results')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    from experiments.throughput import run_benchmark
    run_benchmark(args)


if __name__ == '__main__':
    run_tool(main)
