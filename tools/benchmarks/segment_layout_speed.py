"""Median time to sample one segment layout, per paper setting.

Target: well under the cost of decoding an image (a few ms for an ImageNet
JPEG): under 1 ms per layout. Times the whole transform (seed draw, layout,
token ranks) as the data pipeline runs it.

    python tools/benchmarks/segment_layout_speed.py [--repeats 2000] \
        [--out work_dirs/benchmarks/segment_layout_speed.json]
"""
import argparse
import time

import numpy as np
from benchmark_io import machine_info, write_json

from randsac_mm.datasets import RandSACSegmentGenerator

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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeats', type=int, default=2000,
                        help='layouts per timing round (5 rounds)')
    parser.add_argument(
        '--out', default='work_dirs/benchmarks/segment_layout_speed.json',
        help='JSON file for the results')
    args = parser.parse_args(argv)
    if args.repeats < 1:
        raise ValueError(f'--repeats must be >= 1, got {args.repeats}')
    np.random.seed(0)
    rows = []
    print(f'{"setting":45s} {"ms/layout":>10s}')
    for name, kwargs in SETTINGS:
        ms = time_transform(RandSACSegmentGenerator(**kwargs), args.repeats)
        rows.append(dict(setting=name, ms_per_layout=ms, **{
            k: list(v) if isinstance(v, tuple) else v
            for k, v in kwargs.items()
        }))
        print(f'{name:45s} {ms:10.4f}')
    write_json(dict(machine=machine_info(), target_ms=1.0, results=rows),
               args.out)


if __name__ == '__main__':
    main()
