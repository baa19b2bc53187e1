"""`make demo` end to end: ``python -m experiments.demo``.

The demo's margin (5 points or more, the README's claim) is an accuracy
target, checked by the demo itself: ``make demo-check`` runs the whole demo
with ``--require-margin 5``, and CI runs it after the suite (docs/demo.md).
Here one pretraining epoch runs every stage, and the check refuses it.
"""
import json
import re

import pytest
from PIL import Image

from experiments.demo import margin_shortfall, parse_args

from ..conftest import THREADS_PER_WORKER, run_tool
from ..tool_runs import run_command

DEMO = ['-m', 'experiments.demo']


@pytest.mark.heavy(minutes=2)  # a long test: conftest starts it first
def test_one_epoch_demo_writes_every_figure_and_checks_the_margin(tmp_path):
    out = run_command([*DEMO, '--work-dir', tmp_path, '--seed', '0',
                       '--pretrain-epochs', '1', '--require-margin', '100'],
                      env={'OMP_NUM_THREADS': str(THREADS_PER_WORKER)})
    # Everything is written and printed, then the check fails the run.
    assert out.returncode == 1, out.stderr[-3000:]
    results = json.loads((tmp_path / 'results.json').read_text())
    pretrained, random_init = results['pretrained'], results['random']
    assert results['pretrain_epochs'] == 1
    # The CPU it ran on: its bf16 kernels move the figures.
    assert {'cpu', 'cpu_bf16', 'torch'} <= set(results['machine'])
    # The precision it ran in, said in the summary: the suite's float32.
    assert results['precision'] == 'float32'
    assert re.search(r'RandSAC demo on MNIST5k \([\d.]+ min on the CPU, '
                     r'float32\)', out.stdout)
    assert results['linear_margin'] == pytest.approx(
        pretrained['linear'] - random_init['linear'])
    assert results['final_loss'] < results['first_loss']
    for value in (pretrained['linear'], pretrained['knn'],
                  random_init['linear'], random_init['knn']):
        assert f'{value:6.2f}%' in out.stdout
    # The raw pixels' readouts, the reference line, on the held-out digits.
    pixels = results['pixels']
    assert pixels['feature_dim'] == 32 * 32  # gray, counted once
    assert re.search(r'raw pixels +' + r' +'.join(
        re.escape(f"{pixels[r]:6.2f}%") for r in ('linear', 'knn')),
        out.stdout)
    assert pixels['knn'] > 90  # the digits' pixels are a strong reference
    assert '[demo 1/3]' in out.stdout and 'Epoch(train)' in out.stdout
    assert out.stderr.strip().splitlines()[-1] == (
        'python -m experiments.demo: ' + margin_shortfall(results, 100))
    curve = Image.open(tmp_path / 'loss_curve.png')
    recon = Image.open(tmp_path / 'reconstruction.png')
    assert curve.size[0] > 300 and recon.size[0] > 300
    gif = Image.open(tmp_path / 'segments.gif')
    assert gif.n_frames == 17  # 16 segments, and the empty first frame


def test_the_margin_check_compares_the_linear_probes():
    results = dict(linear_margin=8.3, pretrained=dict(linear=79.5),
                   random=dict(linear=71.2))
    assert margin_shortfall(results, 5) is None
    assert margin_shortfall(results, 8.3) is None
    assert margin_shortfall(results, 10) == (
        "the linear probe's margin is +8.30 points (79.50% pretrained, "
        '71.20% random), below the required +10.00')


def test_demo_rejects_bad_arguments(tmp_path, capsys):
    with pytest.raises(
            pytest.fail.Exception,
            match='argument --pretrain-epochs: must be >= 1, got 0'):
        run_tool([*DEMO, '--work-dir', tmp_path, '--pretrain-epochs', '0'])
    with pytest.raises(SystemExit):
        parse_args(['--probe', 'knn', '--require-margin', '5'])
    assert capsys.readouterr().err.endswith(
        "argument --require-margin: it checks the linear probe's margin; "
        'keep linear in --probe\n')
    with pytest.raises(SystemExit):
        parse_args(['--require-margin', '0'])
    assert 'argument --require-margin: must be > 0, got 0' in \
        capsys.readouterr().err
