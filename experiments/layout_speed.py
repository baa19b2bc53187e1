"""Time to sample one segment layout, as the data pipeline does
(tools/benchmarks/segment_layout_speed.py)."""
import time

import numpy as np

__all__ = ['SETTINGS', 'time_transform']

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
