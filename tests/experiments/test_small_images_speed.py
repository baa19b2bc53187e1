"""python -m experiments.small_images_speed: both data paths for small
images timed, per layout of the paper-scale plan, printed and written."""
import json

import pytest

from experiments.small_images_speed import LAYOUTS

from ..conftest import run_tool


@pytest.mark.heavy
def test_both_paths_are_timed_printed_and_written(tmp_path):
    path = tmp_path / 'speed.json'
    out = run_tool(['-m', 'experiments.small_images_speed', '--batch-size',
                    '8', '--batches', '1', '--rounds', '1', '--out', path])
    result = json.loads(path.read_text())
    assert list(result['layouts']) == list(LAYOUTS)
    for name, row in result['layouts'].items():
        for side in ('per_sample', 'batch'):
            speeds = row[side]
            assert speeds['images_per_s'] < min(
                speeds['loader_images_per_s'], speeds['model_images_per_s'])
            assert speeds['images_per_s'] > 0
        assert row['speedup'] == pytest.approx(
            row['batch']['images_per_s'] / row['per_sample']['images_per_s'])
        assert name in out.stdout
    assert result['batch_size'] == 8 and result['machine']['cpu_count'] > 0
