"""How many segments and partitions the blob configs really give.

The paper's blob draw (its appendix) drops Gaussian components that catch
no token, and likewise at every hierarchy level, so a layout can have fewer
segments than K and fewer partitions than asked for, down to a single
partition (a flat layout). This samples each blob config's layouts as its
training pipeline does and reports, per config: the mean segment count,
the share of layouts below K, and per hierarchy level the mean group count,
the share below nominal and the share collapsed to one group. From the
repository root:

    python -m experiments.benchmarks.blob_counts [CONFIG ...] [--samples 10000]
        [--exact-counts] [--out work_dirs/blob_counts.json]

Without CONFIG: every RandSAC pretraining config under configs/ with blob
segments. ``--exact-counts`` measures the ``exact_counts=True`` option
instead (which must give the nominal counts every time).
"""
import json
import os
import os.path as osp
from glob import glob

import numpy as np

from randsac_mm.cli.args import (
    positive_int,
    seed_value,
)
from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CONFIG
from randsac_mm.cli.run_tool import run_tool

from .. import REPO_ROOT

__all__ = ['blob_generators', 'count_statistics', 'summary_line']

PROG = 'python -m experiments.benchmarks.blob_counts'


def blob_generators(paths, exact_counts):
    """(config path, RandSACSegmentGenerator) of every blob config."""
    from randsac_mm.cli.config_file import read_config
    from randsac_mm.datasets import RandSACSegmentGenerator
    found = []
    for path in paths:
        cfg = read_config(path, 'configs')
        try:
            generator = RandSACSegmentGenerator.from_config(cfg)
        except ValueError:  # not a RandSAC pretraining config
            continue
        spec = generator.spec
        if spec.segment != 'blob':
            continue
        if exact_counts:
            step = dict(input_size=generator.input_size,
                        patch_size=generator.patch_size, segment='blob',
                        num_segments=spec.num_segments,
                        hierarchy=spec.hierarchy,
                        serialization=spec.serialization,
                        coherent=spec.coherent, exact_counts=True)
            generator = RandSACSegmentGenerator(**step)
        found.append((path, generator))
    return found


def count_statistics(generator, samples, seed):
    """Segment and partition counts of ``samples`` layouts.

    Returns:
        dict: ``k``, ``hierarchy``, ``segments_mean``, ``below_k`` (share),
        and per level ``levels[i]``: ``nominal``, ``mean``, ``below`` and
        ``collapsed`` (share with a single group).
    """
    from randsac_mm.segments import make_layout
    spec = generator.spec
    rng = np.random.default_rng(seed)
    segments = np.empty(samples, dtype=np.int64)
    groups = np.empty((samples, len(spec.hierarchy)), dtype=np.int64)
    for i in range(samples):
        layout = make_layout(spec, rng)
        segments[i] = layout.num_segments
        groups[i] = [len(np.unique(level)) for level in layout.groups]
    levels = [dict(nominal=int(count), mean=float(groups[:, i].mean()),
                   below=float((groups[:, i] < count).mean()),
                   collapsed=float((groups[:, i] == 1).mean()))
              for i, count in enumerate(spec.hierarchy)]
    return dict(k=spec.num_segments, hierarchy=list(spec.hierarchy),
                grid=list(spec.grid), segments_mean=float(segments.mean()),
                below_k=float((segments < spec.num_segments).mean()),
                levels=levels)


def summary_line(stats):
    """e.g. '10.55 of 11 (41% below); 5 groups: 4.71 (25% below, 0.0% one)'"""
    text = (f"{stats['segments_mean']:.2f} of {stats['k']} "
            f"({100 * stats['below_k']:.0f}% below)")
    for level in stats['levels']:
        text += (f"; {level['nominal']} groups: {level['mean']:.2f} "
                 f"({100 * level['below']:.0f}% below, "
                 f"{100 * level['collapsed']:.1f}% one)")
    return text


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_path('configs', nargs='*', kind=CONFIG,
                        help='RandSAC pretraining configs with blob segments '
                        '(default: every one under configs/)')
    parser.add_argument('--samples', type=positive_int, default=10000,
                        help='layouts sampled per config')
    parser.add_argument('--exact-counts', action='store_true',
                        help='measure the exact_counts=True option')
    parser.add_argument('--seed', type=seed_value, default=0,
                        help='seed of the sampled layouts')
    parser.add_argument('--out', default='work_dirs/blob_counts.json',
                        help='JSON file for the results')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    import randsac_mm.datasets  # noqa: F401  (registers the transform)
    paths = args.configs or sorted(
        p for p in glob(osp.join(REPO_ROOT, 'configs', '**', '*.py'),
                        recursive=True) if '_base_' not in p)
    generators = blob_generators(paths, args.exact_counts)
    if not generators:
        raise UserError(
            'configs: none of the given configs is a RandSAC pretraining '
            "config with blob segments (segment='blob'); give such configs, "
            'or none for every one under configs/')
    if args.configs:  # told, not silently dropped
        kept = {path for path, _ in generators}
        for path in args.configs:
            if path not in kept:
                print(f'skipped {path}: not a RandSAC pretraining config '
                      'with blob segments', flush=True)
    results = {}
    for path, generator in generators:
        stats = count_statistics(generator, args.samples, args.seed)
        name = osp.relpath(path, osp.join(REPO_ROOT, 'configs'))
        results[name] = stats
        print(f'{name}: {summary_line(stats)}', flush=True)
    os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        json.dump(dict(samples=args.samples, seed=args.seed,
                       exact_counts=args.exact_counts, configs=results), f,
                  indent=2)
    print(f'wrote {args.out}')


if __name__ == '__main__':
    run_tool(main, prog=PROG)
