"""experiments.cpu_precision: each job run as a user runs it, once per
precision (RANDSAC_CPU_PRECISION set for its process), timed, its figures
read back, the JSON written after each job."""
import json
import os.path as osp

import pytest

from experiments import cpu_precision
from randsac_mm._cli.errors import UserError


def fake_job(folder):
    """Writes the precision its process was given, as a job's record."""
    command = ['-c', 'import json, os, sys; os.makedirs(sys.argv[1]); '
               'json.dump(os.environ["RANDSAC_CPU_PRECISION"], '
               'open(os.path.join(sys.argv[1], "r.json"), "w"))', folder]

    def figures():
        with open(osp.join(folder, 'r.json')) as f:
            return dict(ran_in=json.load(f))
    return command, figures


def test_each_precision_runs_in_its_own_process_and_is_written(
        monkeypatch, tmp_path):
    monkeypatch.setitem(cpu_precision.JOBS, 'fake', fake_job)
    out = tmp_path / 'cpu.json'
    cpu_precision.main(['--jobs', 'fake', '--work-dir', str(tmp_path / 'w'),
                        '--out', str(out)])
    result = json.loads(out.read_text())
    assert [(r['job'], r['precision'], r['ran_in'])
            for r in result['rows']] == [('fake', 'float32', 'float32'),
                                         ('fake', 'bfloat16', 'bfloat16')]
    assert set(result['bf16_speedup']) == {'fake'}
    assert 'cpu_bf16' in result['machine']
    # A second command in the same work dir would mix two runs: refused.
    with pytest.raises(UserError, match=r'fake_float32 exists'):
        cpu_precision.main(['--jobs', 'fake', '--work-dir',
                            str(tmp_path / 'w')])


def test_speedup_is_float32_time_over_bf16_time():
    rows = [dict(job='demo', precision='float32', wall_s=150.0),
            dict(job='demo', precision='bfloat16', wall_s=120.0),
            dict(job='upernet', precision='bfloat16', wall_s=60.0),
            dict(job='quick', precision='float32', wall_s=0.0),
            dict(job='quick', precision='bfloat16', wall_s=0.0)]
    assert cpu_precision.speedups(rows) == {'demo': 1.25, 'quick': None}
