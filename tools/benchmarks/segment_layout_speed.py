r"""Median time to sample one segment layout, per paper setting.

Target: well under the cost of decoding an image (a few ms for an ImageNet
JPEG): under 1 ms per layout. Times the whole transform (seed draw, layout,
token ranks) as the data pipeline runs it.

    python tools/benchmarks/segment_layout_speed.py [--repeats 2000] \
        [--out work_dirs/benchmarks/segment_layout_speed.json]
"""
import argparse
import os
import os.path as osp
import sys
import time

import numpy as np

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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--repeats', type=positive_int, default=2000,
                        help='layouts per timing round (5 rounds; the median'
                        ' round counts)')
    parser.add_argument(
        '--out', default='work_dirs/benchmarks/segment_layout_speed.json',
        help='JSON file for the results')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    from experiments.benchmark_io import machine_info, write_json
    from experiments.layout_speed import SETTINGS, time_transform
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
    write_json(dict(machine=machine_info(), date=time.strftime('%Y-%m-%d'),
                    command=' '.join(['python', 'tools/benchmarks/'
                                      'segment_layout_speed.py',
                                      *map(str, sys.argv[1:] if argv is None
                                           else argv)]),
                    load_average_1min=[load_before, os.getloadavg()[0]],
                    target_ms=1.0, results=rows), args.out)


if __name__ == '__main__':
    run_tool(main)
