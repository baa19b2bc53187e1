r"""The CPU's jobs in float32 and in bf16, on the same machine in one
command: wall time and the figures each job's verdict rests on. From the
repository root:

    python -m experiments.cpu_precision [--jobs demo upernet maskrcnn] \
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
  beside the job's); its figure: mIoU, against the study's float32 records
  (seeds 0 and 1: 38.17 and 42.56);
- ``maskrcnn``: the same for Mask R-CNN (``--tasks detection``); its
  figures: box and mask AP (the records: 50.70 and 51.10, 30.90 and
  31.30).

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

from randsac_mm._cli.args import HelpFormatter
from randsac_mm._cli.errors import UserError, add_debug_arg, run_tool

from . import REPO_ROOT
from .benchmark_io import code_commit, machine_info, write_json

PROG = 'python -m experiments.cpu_precision'
PRECISIONS = ('float32', 'bfloat16')


def demo_job(folder):
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
    def job(folder):
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


JOBS = {'demo': demo_job,
        'upernet': transfer_job('segmentation', ('mIoU', )),
        'maskrcnn': transfer_job('detection', ('bbox_mAP', 'segm_mAP'))}


def run_job(name, precision, work_dir, log=print):
    """Runs job ``name`` in ``precision``; returns its row."""
    folder = osp.join(work_dir, f'{name}_{precision}')
    if osp.exists(folder):
        raise UserError(f'--work-dir: {folder} exists (an earlier run of '
                        'this job); give another --work-dir or remove it')
    command, figures = JOBS[name](folder)
    env = dict(os.environ, RANDSAC_CPU_PRECISION=precision)
    log(f'[{name} {precision}] {" ".join(command)}')
    start = time.time()
    with open(osp.join(work_dir, f'{name}_{precision}.log'), 'w') as out:
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
    parser.add_argument('--out', help='JSON file; None: not written')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    os.makedirs(args.work_dir, exist_ok=True)
    result = dict(machine=machine_info(), commit=code_commit(),
                  command=' '.join([PROG] + sys.argv[1:]), rows=[])
    for job in args.jobs:
        for precision in args.precisions:
            result['rows'].append(run_job(job, precision, args.work_dir))
            result['bf16_speedup'] = speedups(result['rows'])
            if args.out:  # after each job: a stopped command keeps them
                write_json(args.out, result)
    print(json.dumps(result['bf16_speedup']))


if __name__ == '__main__':
    run_tool(main, prog=PROG)
