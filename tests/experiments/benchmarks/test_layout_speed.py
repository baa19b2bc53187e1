"""python -m experiments.benchmarks.layout_speed: the time to draw one
layout, per paper setting, printed and written."""
import json

import pytest

from ...conftest import run_tool


@pytest.mark.heavy
def test_layout_benchmark_prints_and_writes_json(tmp_path):
    path = tmp_path / 'bench.json'
    out = run_tool(['-m', 'experiments.benchmarks.layout_speed', '--repeats',
                    '20', '--out', path])
    result = json.loads(path.read_text())
    assert len(result['results']) == 5
    for row in result['results']:
        assert 0 < row['ms_per_layout'] < 100
        assert f"{row['setting']:45s}" in out.stdout
    assert result['target_ms'] == 1.0
    assert result['command'] == \
        'python -m experiments.benchmarks.layout_speed --repeats 20 ' \
        f'--out {path}'
