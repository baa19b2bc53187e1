"""How coherent a config's segments are, and how far a predicted token
lies from what the model has already seen.

The paper's coherence ablation ("Shuffle K") keeps the blob sizes and
reassigns tokens to segments at random. This samples each config's layouts
as its training pipeline does and reports, per config:

- ``segments_mean``: segments a layout (blobs may drop some);
- ``neighbour_share``: share of tokens with a 4-neighbour in their own
  segment (1.0 for blobs that are whole regions, 0.0 for single patches);
- ``given_share``: share of tokens in the first segment, which the model is
  given and does not predict;
- ``context_mean``: tokens of earlier segments a predicted token has
  (its context), by the order of the finest segments;
- ``nearest_context_mean``: distance, in tokens, from a predicted token to
  the nearest token of its context (1.0: always a 4-neighbour).

From the repository root::

    python -m experiments.benchmarks.layout_geometry CONFIG [CONFIG ...]
        [--samples 3000] [--seed 0] [--out work_dirs/layout_geometry.json]
"""
import json
import os
import os.path as osp

import numpy as np

from randsac_mm.cli.args import (
    positive_int,
    seed_value,
)
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CONFIG
from randsac_mm.cli.run_tool import run_tool

from .. import REPO_ROOT

__all__ = ['layout_geometry', 'geometry_statistics', 'summary_line']

PROG = 'python -m experiments.benchmarks.layout_geometry'


def layout_geometry(segment_ids, token_rank, grid):
    """The geometry of one layout.

    Args:
        segment_ids (np.ndarray): int [N], each token's segment (raster
            order of an ``h x w`` grid, ``N = h * w``).
        token_rank (np.ndarray): int [N], the serialization step of each
            token's segment (0: the first segment, given).
        grid (tuple[int, int]): ``(h, w)``.

    Returns:
        dict: ``neighbour_share``, ``given_share``, ``context_mean`` and
        ``nearest_context_mean`` (the last two over predicted tokens; NaN
        when the layout has one segment).
    """
    h, w = grid
    rows, cols = np.divmod(np.arange(h * w), w)
    distance = np.hypot(rows[:, None] - rows[None], cols[:, None] - cols[None])
    same = segment_ids[:, None] == segment_ids[None]
    # before[n, m]: token m's segment comes before token n's.
    before = token_rank[None, :] < token_rank[:, None]
    predicted = token_rank > 0
    nearest = np.where(before, distance, np.inf).min(axis=1)[predicted]
    return dict(
        neighbour_share=float((same & (distance == 1)).any(axis=1).mean()),
        given_share=float(1 - predicted.mean()),
        context_mean=float(before.sum(axis=1)[predicted].mean())
        if predicted.any() else float('nan'),
        nearest_context_mean=float(nearest.mean())
        if predicted.any() else float('nan'))


def geometry_statistics(generator, samples, seed):
    """Means of :func:`layout_geometry` over ``samples`` layouts of a
    ``RandSACSegmentGenerator``, and their segment count.

    Returns:
        dict: ``segment``, ``coherent``, ``grid``, ``segments_mean`` and
        the means of :func:`layout_geometry`'s figures.
    """
    from randsac_mm.segments import make_layout
    spec = generator.spec
    rng = np.random.default_rng(seed)
    figures, segments = [], []
    for _ in range(samples):
        layout = make_layout(spec, rng)
        segments.append(layout.num_segments)
        figures.append(layout_geometry(layout.segment_ids,
                                       layout.token_rank, spec.grid))
    means = {key: float(np.nanmean([f[key] for f in figures]))
             for key in figures[0]}
    return dict(segment=spec.segment, coherent=spec.coherent,
                grid=list(spec.grid),
                segments_mean=float(np.mean(segments)), **means)


def summary_line(stats):
    """e.g. '6.95 segments; 45.4% with a neighbour in their segment; 14.4%
    given; context 31.0 tokens, nearest 1.20 away' (blob K=7 shuffled)"""
    return (f"{stats['segments_mean']:.2f} segments; "
            f"{100 * stats['neighbour_share']:.1f}% with a neighbour in "
            f"their segment; {100 * stats['given_share']:.1f}% given; "
            f"context {stats['context_mean']:.1f} tokens, nearest "
            f"{stats['nearest_context_mean']:.2f} away")


def _segment_generator(path):
    """The layout step of a RandSAC pretraining config (UserError naming
    the config otherwise: a classifier, or MAE, draws no segments)."""
    from randsac_mm.cli.config_file import read_config
    from randsac_mm.run.builds import build_segment_generator
    return build_segment_generator(read_config(path, 'configs'), 'configs',
                                   path)


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_path('configs', nargs='+', kind=CONFIG,
                        help='RandSAC pretraining configs (their training '
                        'pipeline draws the layouts)')
    parser.add_argument('--samples', type=positive_int, default=3000,
                        help='layouts sampled per config')
    parser.add_argument('--seed', type=seed_value, default=0,
                        help='seed of the sampled layouts')
    parser.add_argument('--out', default='work_dirs/layout_geometry.json',
                        help='JSON file for the results')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    generators = [(path, _segment_generator(path)) for path in args.configs]
    results = {}
    for path, generator in generators:
        stats = geometry_statistics(generator, args.samples, args.seed)
        name = osp.relpath(osp.abspath(path), osp.join(REPO_ROOT, 'configs'))
        results[name] = stats
        print(f'{name}: {summary_line(stats)}', flush=True)
    os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        json.dump(dict(samples=args.samples, seed=args.seed,
                       configs=results), f, indent=2)
    print(f'wrote {args.out}')


if __name__ == '__main__':
    run_tool(main, prog=PROG)
