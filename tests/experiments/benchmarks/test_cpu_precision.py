"""experiments.benchmarks.cpu_precision: each job run as a user runs it,
once per precision (RANDSAC_CPU_PRECISION set for its process), timed, its
figures read back, the JSON written after each job."""
import json
import os.path as osp

import pytest

from experiments.benchmarks import cpu_precision
from randsac_mm.cli.errors import UserError


def fake_job(folder, args):
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


def test_study_job_figures_are_seed_0_readouts_and_ordering_gaps():
    def record(variant, seed, linear, knn):
        return dict(variant=variant, seed=seed, linear=linear, knn=knn,
                    pretrain_minutes=2.0)
    records = [record('random', 0, 70.0, 60.0),
               record('patch-raster', 0, 75.0, 66.0),
               record('patch-random', 0, 77.5, 70.25),
               record('square-m2', 0, 78.0, 71.0),
               record('square-m2', 1, 99.0, 99.0),   # another seed: not read
               record('blob-k7', 0, 99.0, 99.0)]     # not a key row
    figures = cpu_precision.seed0_figures(records)
    assert figures['gaps'] == {
        'square-m2 - random': dict(linear=8.0, knn=11.0),
        'patch-random - patch-raster': dict(linear=2.5, knn=4.25)}
    assert figures['variants']['square-m2'] == dict(
        linear=78.0, knn=71.0, pretrain_minutes=2.0)


def test_study_job_without_its_data_is_refused_before_any_job(
        tmp_path, capsys):
    with pytest.raises(SystemExit) as exit:
        cpu_precision.main(['--jobs', 'demo', 'study', '--work-dir',
                            str(tmp_path / 'w'), '--data-root',
                            str(tmp_path / 'none')])
    assert exit.value.code == 2
    assert '--data-root: ' in capsys.readouterr().err
    assert not (tmp_path / 'w').exists()
