r"""Median time to sample one segment layout, per paper setting.

Target: well under the cost of decoding an image (a few ms for an ImageNet
JPEG): under 1 ms per layout. Times the whole transform (seed draw, layout,
token ranks) as the data pipeline runs it. From the repository root:

    python -m experiments.benchmarks.layout_speed [--repeats 2000] \
        [--out work_dirs/benchmarks/segment_layout_speed.json]
"""
import argparse
import os
import sys
import time

import numpy as np

from randsac_mm.cli.args import HelpFormatter, positive_int
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.run_tool import run_tool

from ..benchmark_io import machine_info, write_json

__all__ = ['SETTINGS', 'time_transform']

PROG = 'python -m experiments.benchmarks.layout_speed'

# (name, transform arguments): the hierarchical settings of the paper.
SETTINGS = [
    ('blob 11->5, 14x14 (IN100 224px P16)',
     dict(input_size=224, patch_size=16, segment='blob', num_segments=11,
          hierarchy=(5, ))),
    ('square 16->4, 12x12 (IN1K 192px P16, M=3)',
     dict(input_size=192, patch_size=16, segment='square', square_size=3,
          hierarchy=(4, ))),
    ('square 16->4, 8x8 (CIFAR 32px P4, M=2)',
     dict(input_size=32, patch_size=4, segment='square', square_size=2,
          hierarchy=(4, ))),
    ('blob 11->5, 8x8 (CIFAR 32px P4)',
     dict(input_size=32, patch_size=4, segment='blob', num_segments=11,
          hierarchy=(5, ))),
    ('blob 11 shuffled, 8x8 (CIFAR 32px P4)',
     dict(input_size=32, patch_size=4, segment='blob', num_segments=11,
          coherent=False)),
]


def time_transform(transform, repeats, rounds=5):
    """Median over ``rounds`` of the mean time per call, in ms."""
    for _ in range(50):  # warm-up
        transform(dict())
    means = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeats):
            transform(dict())
        means.append((time.perf_counter() - start) / repeats * 1e3)
    return float(np.median(means))


def main(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--repeats', type=positive_int, default=2000,
                        help='layouts per timing round (5 rounds; the median'
                        ' round counts)')
    parser.add_argument(
        '--out', default='work_dirs/benchmarks/segment_layout_speed.json',
        help='JSON file for the results')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    from randsac_mm.datasets import RandSACSegmentGenerator
    np.random.seed(0)
    # Recorded with the figures: timings on a loaded machine run long.
    load_before = os.getloadavg()[0]
    rows = []
    print(f'{"setting":45s} {"ms/layout":>10s}')
    for name, kwargs in SETTINGS:
        ms = time_transform(RandSACSegmentGenerator(**kwargs), args.repeats)
        rows.append(dict(setting=name, ms_per_layout=ms, **{
            k: list(v) if isinstance(v, tuple) else v
            for k, v in kwargs.items()
        }))
        print(f'{name:45s} {ms:10.4f}')
    write_json(args.out, dict(
        machine=machine_info(), date=time.strftime('%Y-%m-%d'),
        command=' '.join([PROG, *map(str, sys.argv[1:] if argv is None
                                     else argv)]),
        load_average_1min=[load_before, os.getloadavg()[0]],
        target_ms=1.0, results=rows))


if __name__ == '__main__':
    run_tool(main, prog=PROG)
