"""python -m experiments.benchmarks.throughput runs end to end and writes
the JSON its table in docs/performance.md comes from (figures are not
asserted: only shapes, ratios and bookkeeping)."""
import json
import subprocess
import sys

import pytest

from experiments.benchmarks import throughput as benchmark

from ...conftest import REPO_ROOT

COMMAND = [sys.executable, '-m', 'experiments.benchmarks.throughput']


def test_pool_passes_takes_median_of_all_rounds_and_highest_memory():
    rows = [dict(batch_size=4, rounds_ms=[10.0, 30.0], peak_mem_mib=100.0,
                 train_mem_mib=50.0),
            dict(batch_size=4, rounds_ms=[20.0], peak_mem_mib=120.0,
                 train_mem_mib=40.0)]
    row = benchmark.pool_passes(rows)
    assert row['rounds_ms'] == [10.0, 30.0, 20.0]
    assert row['ms_per_iter'] == 20.0 and row['images_per_s'] == 200.0
    assert (row['peak_mem_mib'], row['train_mem_mib']) == (120.0, 50.0)
    assert row['passes'] == 2


@pytest.mark.heavy
def test_benchmark_writes_rows_ratios_and_flops(tmp_path):
    out = tmp_path / 'bench.json'
    proc = subprocess.run(
        [*COMMAND, '--settings', 'vit-t-cifar', '--dtypes', 'fp32',
         '--variants', 'reference', 'ours', 'ours-flex', '--batch-size', '2',
         '--iters', '1', '--repeats', '1', '--warmup', '0', '--passes', '1',
         '--out', str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # One pass: each variant of each pass is a process of its own (seconds
    # of imports); how passes pool is tested above.
    assert '(pass 1/1)' in proc.stdout
    result = json.loads(out.read_text())
    assert result['passes'] == 1
    rows = {r['variant']: r for r in result['rows']}
    assert set(rows) == {'reference', 'ours'}
    # flex_attention has no backward on a CPU: that variant fails, the
    # others are measured and written, and the failure is reported.
    assert [r['variant'] for r in result['failed']] == ['ours-flex']
    assert 'FAILED' in proc.stdout and "under 'failed'" in proc.stdout
    # The end of the worker's traceback, not one line.
    assert 'File "' in result['failed'][0]['failed']
    assert result['command'].startswith(
        'python -m experiments.benchmarks.throughput --settings vit-t-cifar ')
    for row in rows.values():
        assert len(row['rounds_ms']) == 1 and row['peak_mem_mib'] > 0
        assert row['images_per_s'] == pytest.approx(
            2e3 / row['ms_per_iter'])
    assert rows['reference']['x_reference'] == 1.0
    assert rows['ours']['x_reference'] == pytest.approx(
        rows['ours']['images_per_s'] / rows['reference']['images_per_s'])
    macs = result['forward_macs_per_image']['vit-t-cifar']
    assert rows['ours']['gflops_per_s'] == pytest.approx(
        rows['ours']['images_per_s'] * macs * 6 / 1e9)


@pytest.mark.parametrize('flag', ['--passes', '--iters', '--repeats',
                                  '--batch-size'])
def test_benchmark_refuses_non_positive_counts(flag):
    proc = subprocess.run([*COMMAND, flag, '0'], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert f'argument {flag}: must be >= 1, got 0' in proc.stderr


def test_unmeasured_columns_print_a_dash_not_zero():
    """A row without a reference or MAE timed beside it, a baseline's
    FLOP/s and MFU without --peak-tflops were not measured: '-', never
    0.00."""
    rows = [dict(setting='vit-t-cifar', dtype='fp32', variant='ours',
                 batch_size=2, ms_per_iter=10.0, images_per_s=200.0,
                 peak_mem_mib=100.0, gflops_per_s=1.5),
            dict(setting='vit-t-cifar', dtype='fp32', variant='reference',
                 batch_size=2, ms_per_iter=20.0, images_per_s=100.0,
                 peak_mem_mib=90.0, train_mem_mib=10.0, x_reference=1.0)]
    head, _, ours, reference, _ = benchmark.table_lines(
        rows, {'vit-t-cifar': 1e8})
    cells = ours.split()
    assert '0.00' not in cells
    # xref, xmae, +train and MFU of ours; xmae, GFLOP/s and MFU of the
    # reference.
    assert cells[6:8] == ['-', '-'] and cells[9] == '-' and cells[11] == '-'
    assert reference.split()[6:] == ['1.00', '-', '90', '10', '-', '-']
