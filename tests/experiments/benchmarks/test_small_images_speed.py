"""python -m experiments.benchmarks.small_images_speed: both data paths for
small images timed, per layout of the paper-scale plan, printed and written."""
import json

import numpy as np
import pytest
from mmengine.dataset import default_collate

from experiments.benchmarks.small_images_speed import LAYOUTS, build_paths

from ...conftest import run_tool


@pytest.mark.heavy
def test_both_paths_are_timed_printed_and_written(tmp_path):
    path = tmp_path / 'speed.json'
    out = run_tool(['-m', 'experiments.benchmarks.small_images_speed',
                    '--batch-size', '8', '--batches', '1', '--rounds', '1',
                    '--out', path])
    result = json.loads(path.read_text())
    assert list(result['layouts']) == list(LAYOUTS)
    for name, row in result['layouts'].items():
        for side in ('per_sample', 'batch'):
            for key in ('loader_images_per_s', 'model_images_per_s'):
                assert 0 < row[side][key] < 1e7, (name, side, key)
        line = next(line for line in out.stdout.splitlines()
                    if line.startswith(name))
        assert f"{row['speedup']:.1f}x" in line
    assert result['batch_size'] == 8 and result['machine']['cpu_count'] > 0
    assert result['model_device'] == 'cpu' and result['commit']


def test_the_model_side_runs_on_the_meta_device():
    """--device meta: the preprocessors run with no arithmetic (what the
    host pays per batch), their images' shapes as on the CPU."""
    for path, (load, preprocess) in build_paths(
            LAYOUTS['patch-random'], 'meta').items():
        out = preprocess(default_collate(load(np.arange(4))), True)
        assert out['inputs'].device.type == 'meta', path
        assert out['inputs'].shape == (4, 3, 32, 32), path
