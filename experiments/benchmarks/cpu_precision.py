r"""The CPU's jobs in float32 and in bf16, on the same machine in one
command: wall time and the figures each job's verdict rests on. From the
repository root:

    python -m experiments.benchmarks.cpu_precision \
        [--jobs demo upernet maskrcnn study] \
        [--precisions float32 bfloat16] [--work-dir work_dirs/cpu_precision] \
        [--out docs/benchmarks/cpu_precision.json]

Each job runs as a user runs it, in a process of its own, with
``RANDSAC_CPU_PRECISION`` set to the precision (what the configs'
precision='auto' then computes in on this CPU; randsac_mm.precision):

- ``demo``: ``make demo``'s command (pretraining, both encoders' readouts,
  pictures); its figures: the linear-probe and k-NN margins, the last loss;
- ``upernet``: one digit-scene UperNet run from random init at seed 0
  (``experiments.transfer_small --tasks segmentation --inits random``,
  scenes made in the job's folder; the run's own minutes are recorded
  beside the job's); its figure: mIoU, against the 10-epoch study's float32
  records (seeds 0 and 1: 38.17 and 42.56);
- ``maskrcnn``: the same for Mask R-CNN (``--tasks detection``); its
  figures: box and mask AP (the records: 50.70 and 51.10, 30.90 and
  31.30);
- ``study``: the small-scale study's key rows at seed 0
  (``experiments.small_scale --variants random patch-raster patch-random
  square-m2 --seeds 0``, Fashion-MNIST from ``--data-root``); its figures:
  each variant's linear and k-NN accuracy and pretraining minutes, and the
  seed-0 gaps of the two orderings the float32 study decided (random <
  square-m2, patch-raster < patch-random), against
  ``docs/benchmarks/small_scale_study.json``'s seed-0 records.

The JSON holds the machine (with its bf16 instructions), the commit, the
command, each job's rows and its bf16 speed-up.
"""
import argparse
import json
import os
import os.path as osp
import subprocess
import sys
import time

from randsac_mm.cli.args import HelpFormatter
from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.cli.run_tool import run_tool

from .. import REPO_ROOT
from ..benchmark_io import code_commit, machine_info, write_json

PROG = 'python -m experiments.benchmarks.cpu_precision'
PRECISIONS = ('float32', 'bfloat16')


def demo_job(folder, args):
    """make demo's command, and its figures from results.json."""
    def figures():
        with open(osp.join(folder, 'results.json')) as f:
            results = json.load(f)
        return dict(ran_in=results.get('precision'),
                    linear_margin=round(results['linear_margin'], 2),
                    knn_margin=round(results['knn_margin'], 2),
                    linear_pretrained=results['pretrained']['linear'],
                    linear_random=results['random']['linear'],
                    final_loss=round(results['final_loss'], 4))
    return ['-m', 'experiments.demo', '--work-dir', folder], figures


def transfer_job(task, figures_of):
    """One run of the dense study's ``task`` from random init at seed 0
    (its scenes made in the job's folder); its figures from its record."""
    def job(folder, args):
        records = osp.join(folder, 'records')

        def figures():
            with open(osp.join(records, f'{task}_random_seed0.json')) as f:
                record = json.load(f)
            return dict(ran_in=record['settings'].get('precision',
                                                      'float32'),
                        **{key: record['metrics'][key] for key in figures_of},
                        run_minutes=round(record['minutes'], 2))
        return ['-m', 'experiments.transfer_small', '--tasks', task,
                '--inits', 'random', '--seeds', '0', '--work-dir', folder,
                '--records', records], figures
    return job


# The small-scale study's key rows, and the orderings its float32 records
# decided at 5 epochs over three seeds (worse, better).
STUDY_VARIANTS = ('random', 'patch-raster', 'patch-random', 'square-m2')
STUDY_ORDERINGS = (('random', 'square-m2'), ('patch-raster', 'patch-random'))
STUDY_RECORDS = osp.join(REPO_ROOT, 'docs/benchmarks/small_scale_study.json')


def seed0_figures(records):
    """Each key variant's seed-0 readouts and the key orderings' seed-0
    gaps (better minus worse), from a study's records."""
    row = {r['variant']: r for r in records
           if r['seed'] == 0 and r['variant'] in STUDY_VARIANTS}
    readouts = ('linear', 'knn')
    return dict(
        variants={v: dict({k: round(row[v][k], 2) for k in readouts},
                          pretrain_minutes=round(row[v]['pretrain_minutes'],
                                                 2))
                  for v in STUDY_VARIANTS},
        gaps={f'{better} - {worse}': {
            k: round(row[better][k] - row[worse][k], 2) for k in readouts}
            for worse, better in STUDY_ORDERINGS})


def study_job(folder, args):
    """The small-scale study's key rows at seed 0 on ``args.data_root``,
    its figures beside the float32 study's seed-0 records."""
    def figures():
        with open(osp.join(folder, 'study.json')) as f:
            ran = json.load(f)
        with open(STUDY_RECORDS) as f:
            recorded = json.load(f)
        return dict(**seed0_figures(ran['records']),
                    float32_records=seed0_figures(recorded['records']))
    return ['-m', 'experiments.small_scale', '--variants', *STUDY_VARIANTS,
            '--seeds', '0', '--data-root', args.data_root,
            '--work-dir', folder], figures


# {name: job(folder, args) -> (command, figures() -> dict)}
JOBS = {'demo': demo_job,
        'upernet': transfer_job('segmentation', ('mIoU', )),
        'maskrcnn': transfer_job('detection', ('bbox_mAP', 'segm_mAP')),
        'study': study_job}


def run_job(name, precision, args, log=print):
    """Runs job ``name`` in ``precision`` in ``args.work_dir``; returns its
    row."""
    folder = osp.join(args.work_dir, f'{name}_{precision}')
    if osp.exists(folder):
        raise UserError(f'--work-dir: {folder} exists (an earlier run of '
                        'this job); give another --work-dir or remove it')
    command, figures = JOBS[name](folder, args)
    env = dict(os.environ, RANDSAC_CPU_PRECISION=precision)
    log(f'[{name} {precision}] {" ".join(command)}')
    start = time.time()
    with open(osp.join(args.work_dir, f'{name}_{precision}.log'),
              'w') as out:
        proc = subprocess.run([sys.executable] + command, cwd=REPO_ROOT,
                              env=env, stdout=out, stderr=subprocess.STDOUT)
    wall = time.time() - start
    if proc.returncode != 0:
        raise UserError(f'{name} in {precision} exited {proc.returncode}: '
                        f'see {out.name}')
    row = dict(job=name, precision=precision, wall_s=round(wall, 1),
               **figures())
    log(f'[{name} {precision}] {wall / 60:.2f} min: {row}')
    return row


def speedups(rows):
    """Each job's float32 wall time over its bf16 one (None for a bf16
    time too short to measure)."""
    walls = {(r['job'], r['precision']): r['wall_s'] for r in rows}
    return {job: round(walls[job, 'float32'] / walls[job, 'bfloat16'], 2)
            if walls[job, 'bfloat16'] else None
            for job, precision in walls if precision == 'bfloat16'
            and (job, 'float32') in walls}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--jobs', nargs='+', choices=tuple(JOBS),
                        default=list(JOBS),
                        help='jobs to run, each in every precision')
    parser.add_argument('--precisions', nargs='+', choices=PRECISIONS,
                        default=list(PRECISIONS),
                        help='precisions to run each job in')
    parser.add_argument('--work-dir', default='work_dirs/cpu_precision',
                        help='where the jobs run (a folder and a log each)')
    parser.add_argument('--data-root', default='data/fashion-mnist',
                        help="the study job's Fashion-MNIST IDX files "
                        '(make fashion-mnist)')
    parser.add_argument('--out', help='JSON file; None: not written')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    if 'study' in args.jobs and not osp.isdir(args.data_root):
        parser.error(f'--data-root: {args.data_root} is not a folder (the '
                     "study job's Fashion-MNIST: make fashion-mnist)")
    return args


def main(argv=None):
    args = parse_args(argv)
    os.makedirs(args.work_dir, exist_ok=True)
    result = dict(machine=machine_info(), commit=code_commit(),
                  command=' '.join([PROG] + sys.argv[1:]), rows=[])
    for job in args.jobs:
        for precision in args.precisions:
            result['rows'].append(run_job(job, precision, args))
            result['bf16_speedup'] = speedups(result['rows'])
            if args.out:  # after each job: a stopped command keeps them
                write_json(args.out, result)
    print(json.dumps(result['bf16_speedup']))


if __name__ == '__main__':
    run_tool(main, prog=PROG)
