"""How many segments and partitions the blob configs really give.

The paper's blob draw (its appendix) drops Gaussian components that catch
no token, and likewise at every hierarchy level, so a layout can have fewer
segments than K and fewer partitions than asked for, down to a single
partition (a flat layout). This samples each blob config's layouts as its
training pipeline does and reports, per config: the mean segment count,
the share of layouts below K, and per hierarchy level the mean group count,
the share below nominal and the share collapsed to one group.

    python tools/analysis/blob_counts.py [CONFIG ...] [--samples 10000]
        [--exact-counts] [--out work_dirs/blob_counts.json]

Without CONFIG: every RandSAC pretraining config under configs/ with blob
segments. ``--exact-counts`` measures the ``exact_counts=True`` option
instead (which must give the nominal counts every time).
"""
import argparse
import json
import os
import os.path as osp
import sys
from glob import glob

from randsac_mm.apis.cli import (
    HelpFormatter,
    UserError,
    add_debug_arg,
    existing_file,
    positive_int,
    run_tool,
)

REPO_ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
# This tool's code is in the checkout's experiments/ package, not in the
# installed randsac_mm (docs/architecture.md): run it from a checkout.
sys.path.insert(0, REPO_ROOT)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('configs', nargs='*', type=existing_file,
                        help='RandSAC pretraining configs with blob segments '
                        '(default: every one under configs/)')
    parser.add_argument('--samples', type=positive_int, default=10000,
                        help='layouts sampled per config')
    parser.add_argument('--exact-counts', action='store_true',
                        help='measure the exact_counts=True option')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the sampled layouts')
    parser.add_argument('--out', default='work_dirs/blob_counts.json',
                        help='JSON file for the results')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    import randsac_mm.datasets  # noqa: F401  (registers the transform)
    from experiments.blob_counts import (
        blob_generators,
        count_statistics,
        summary_line,
    )
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
    run_tool(main)
