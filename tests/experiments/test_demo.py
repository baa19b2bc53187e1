"""`make demo` end to end: ``python -m experiments.demo``."""
import json

import pytest
from PIL import Image

from ..conftest import THREADS_PER_WORKER, run_tool

pytestmark = pytest.mark.heavy

DEMO = ['-m', 'experiments.demo']


@pytest.mark.heavy(minutes=5)  # the longest test: conftest starts it first
def test_demo_pretrained_encoder_beats_random_by_five_points(tmp_path):
    """The whole demo with its fixed seed: the margin the README states (5
    points or more)."""
    out = run_tool([*DEMO, '--work-dir', tmp_path, '--seed', '0'],
                   timeout=1200,
                   env={'OMP_NUM_THREADS': str(THREADS_PER_WORKER)})
    results = json.loads((tmp_path / 'results.json').read_text())
    pretrained, random_init = results['pretrained'], results['random']
    assert pretrained['linear'] - random_init['linear'] >= 5.0, results
    assert results['linear_margin'] == pytest.approx(
        pretrained['linear'] - random_init['linear'])
    assert results['final_loss'] < 0.7 * results['first_loss']
    for value in (pretrained['linear'], pretrained['knn'],
                  random_init['linear'], random_init['knn']):
        assert f'{value:6.2f}%' in out.stdout
    assert '[demo 1/3]' in out.stdout and 'Epoch(train)' in out.stdout
    curve = Image.open(tmp_path / 'loss_curve.png')
    recon = Image.open(tmp_path / 'reconstruction.png')
    assert curve.size[0] > 300 and recon.size[0] > 300
    gif = Image.open(tmp_path / 'segments.gif')
    assert gif.n_frames == 17  # 16 segments, and the empty first frame


def test_demo_rejects_bad_arguments(tmp_path):
    with pytest.raises(
            pytest.fail.Exception,
            match='argument --pretrain-epochs: must be >= 1, got 0'):
        run_tool([*DEMO, '--work-dir', tmp_path, '--pretrain-epochs', '0'])
