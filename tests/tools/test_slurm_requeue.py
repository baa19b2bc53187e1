"""tools/slurm_train.sh under a job's time limit, on this machine without
Slurm: a stand-in ``srun`` runs the task as srun would (on the CPU, one
process) and sends it SIGUSR1 once it has saved its first epoch, as
``--signal=USR1@90`` does 90 s before the limit; a stand-in ``scontrol``
notes what it is asked. The run stops naming its checkpoint, the job
requeues itself, and the requeued job runs with --resume-if-saved: it
resumes, or starts again if it was stopped before its first checkpoint."""
import json
import os
import re
import subprocess
import sys

import pytest

from ..conftest import DEMO_CLASSIFIER, REPO_ROOT

pytestmark = pytest.mark.heavy

SRUN = '''#!{python}
"""srun: notes its arguments; runs the task (whatever follows $PYTHON) on
the CPU as one process, and sends it SIGUSR1 once it prints $STOP_AT
(without STOP_AT: runs nothing, exit code $EXIT)."""
import json, os, signal, subprocess, sys
args = sys.argv[1:]
with open(os.environ['NOTES'] + '/srun.json', 'a') as f:
    f.write(json.dumps(args) + '\\n')
if 'STOP_AT' not in os.environ:
    sys.exit(int(os.environ['EXIT']))
task = args[args.index(os.environ['PYTHON']):]
task[task.index('--launcher') + 1] = 'none'  # one process, no GPU here
proc = subprocess.Popen(task + ['--device', 'cpu'], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
for line in proc.stdout:
    sys.stdout.write(line)
    if os.environ['STOP_AT'] in line and proc.poll() is None:
        proc.send_signal(signal.SIGUSR1)  # the time limit is near
        break
sys.stdout.write(proc.communicate()[0])
sys.exit(proc.returncode)
'''
SCONTROL = '''#!/bin/sh
echo "$@" >> "$NOTES/scontrol.txt"
'''


@pytest.fixture
def slurm(tmp_path):
    """A PATH with the stand-ins, and the folder of their notes."""
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    for name, text in (('srun', SRUN.format(python=sys.executable)),
                       ('scontrol', SCONTROL)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return dict(PATH=f"{bin_dir}:{os.environ['PATH']}", NOTES=str(tmp_path))


def slurm_train(slurm, work_dir, *extra, **env):
    """tools/slurm_train.sh on the demo classifier, ``extra`` arguments of
    tools/train.py first."""
    return subprocess.run(
        ['tools/slurm_train.sh', 'gpu', 'randsac', DEMO_CLASSIFIER,
         str(work_dir), *extra, '--cfg-options',
         'default_hooks.logger.interval=1',
         'default_hooks.checkpoint.interval=1',
         'train_dataloader.dataset.indices=128', 'train_cfg.val_interval=10'],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYTHON=sys.executable, OMP_NUM_THREADS='1',
                 GPUS='1', GPUS_PER_NODE='1', PYTHONUNBUFFERED='1', **slurm,
                 **env))


def test_a_job_stopped_before_its_limit_requeues_itself_to_resume(tmp_path,
                                                              slurm):
    work = tmp_path / 'work'
    first = slurm_train(slurm, work, REQUEUE='1', SLURM_JOB_ID='4242',
                        STOP_AT='Saving checkpoint at 1 epochs')
    assert first.returncode == 138, first.stdout[-3000:] + first.stderr
    [srun] = [json.loads(line) for line in open(tmp_path / 'srun.json')]
    assert '--signal=USR1@90' in srun and '--resume' not in srun
    # After the epoch's checkpoint, or in the next iteration, as the signal
    # lands (an epoch is 2 iterations).
    assert re.search(r'stopped by SIGUSR1 (after epoch 1|in iteration 3 '
                     r'\(epoch 2\)): --resume restarts epoch 2 from '
                     r'epoch_1\.pth\n', first.stdout), first.stdout[-2000:]
    assert first.stderr.strip().splitlines()[-1] == (
        f'tools/slurm_train.sh: stopped by a signal; job 4242 requeued, it '
        f'resumes from {work}')
    assert (tmp_path / 'scontrol.txt').read_text() == 'requeue 4242\n'
    # The requeued job (Slurm counts its restarts) resumes the run (what
    # --resume then does: tests/engine/test_preemption_hook.py); it ends
    # this time, and is not requeued again.
    again = slurm_train(slurm, work, REQUEUE='1', SLURM_JOB_ID='4242',
                        SLURM_RESTART_COUNT='1', SIGNAL_SECONDS='30',
                        EXIT='0')
    assert again.returncode == 0, again.stderr
    srun = json.loads(open(tmp_path / 'srun.json').read().splitlines()[1])
    assert '--signal=USR1@30' in srun
    assert srun[srun.index('--launcher') + 2] == '--resume-if-saved'
    assert (tmp_path / 'scontrol.txt').read_text() == 'requeue 4242\n'


def test_a_job_requeued_before_its_first_checkpoint_starts_again(tmp_path,
                                                               slurm):
    work = tmp_path / 'work'
    work.mkdir()  # the first try made it, and was stopped before saving
    again = slurm_train(slurm, work, '--dry-run', SLURM_RESTART_COUNT='1',
                        STOP_AT='never printed')
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr
    [srun] = [json.loads(line) for line in open(tmp_path / 'srun.json')]
    assert '--resume-if-saved' in srun and '--resume' not in srun
    lines = again.stdout.splitlines()
    said = [line for line in lines if '--resume-if-saved' in line]
    assert said == [f'tools/train.py: --resume-if-saved: no training '
                    f'checkpoint in {work} yet: starting a new run']
    assert 'the checks passed' in lines[-1]


def test_requeue_takes_0_or_1(tmp_path, slurm):
    proc = slurm_train(slurm, tmp_path, REQUEUE='yes', EXIT='0')
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("tools/slurm_train.sh: error: REQUEUE must "
                                   "be 0 or 1, got 'yes'")
