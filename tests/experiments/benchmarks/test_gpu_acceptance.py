"""The acceptance run of a GPU node (``python -m
experiments.benchmarks.gpu_acceptance``), on the CPU (``--smoke``): the same
path (kernel check, tools/train.py eager and compiled on ImageNet-format
JPEGs, the data pipeline, the downstream backbones) with a tiny model."""
import json
import re

import pytest

from randsac_mm.models.attention.numerical_check import check_labels

from ...conftest import run_tool

pytestmark = pytest.mark.heavy
ACCEPTANCE = ['-m', 'experiments.benchmarks.gpu_acceptance']


@pytest.fixture(scope='module')
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp('acceptance')
    proc = run_tool([*ACCEPTANCE, '--out', out, '--smoke'])
    return out, json.loads((out / 'acceptance.json').read_text()), proc


def test_the_kernel_check_passes_on_the_cpu(smoke):
    _, result, _ = smoke
    rows = result['attention']
    checked = [r for r in rows if 'skipped' not in r]
    assert {r['kernel'] for r in checked} == {'sdpa:flash', 'sdpa:math',
                                              'explicit'}
    assert {(r['rows'], r['length']) for r in checked} == {
        ('normal', 63), ('normal', 64), ('low-lse', 63), ('low-lse', 64)}
    assert all(r['ok'] and r['nan'] == 0 for r in checked)
    # Every registered kernel's every variant is a row; the CPU lacks
    # flex's backward and the GPU-only SDPA backends.
    assert {r['kernel'] for r in rows} == set(check_labels())
    skipped = {r['kernel']: r['skipped'] for r in rows if 'skipped' in r}
    assert set(skipped) == {'flex', 'sdpa:efficient', 'sdpa:cudnn'}
    assert skipped['flex'] == 'flex_attention has no backward on a CPU'


def test_tools_train_runs_eager_and_compiled_to_the_same_losses(smoke):
    out, result, proc = smoke
    train = result['train']
    assert train['batch_size'] == 8 and train['images'] == 32
    assert set(train['runs']) == {'eager', 'compiled'}
    for name, run in train['runs'].items():
        # 2 epochs of 4 iterations: at least the 6 asked for.
        assert run['iterations'] == 8 and run['measured'] == 6, name
        assert run['images_per_s'] == pytest.approx(
            8 / run['ms_per_step'] * 1e3)
        assert 0 <= run['data_wait_share'] <= 1
        assert run['mfu'] is None  # no peak known for a CPU
        log = (out / f'train_{name}.log').read_text()
        assert 'Epoch(train) [2][4/4]' in log
    # The same seed and data: compiling changes the arithmetic's order only.
    assert train['loss_difference'] < 1e-4
    assert train['memory_model_gib'] > 0
    assert '[acceptance] compiled: ' in proc.stdout


def test_data_and_backbones_are_measured_and_tabled(smoke):
    out, result, _ = smoke
    data = result['data']
    assert data['worker_images_per_s'] > 0
    assert 'RandSACSegmentGenerator' in data['worker_ms_per_step']
    assert set(data['workers_needed']) == {'eager', 'compiled'}
    assert set(result['backbones']) == {'upernet', 'mask-rcnn'}
    assert result['backbones']['mask-rcnn']['window_size'] == 14
    text = (out / 'acceptance.md').read_text()
    for heading in ('## Masked attention kernels', '## Training',
                    '## Feeding the GPU', '## Downstream backbones'):
        assert heading in text
    assert result['environment']['gpu'] is None and result['smoke']
    # Written after each part, so a run stopped early keeps what it has.
    assert result['parts_done'] == ['check', 'train eager', 'train', 'data',
                                    'backbones']
    assert 'Parts done: check, train eager, train, data, backbones.' in text
    # What a reader runs again.
    assert result['command'] == \
        f'python -m experiments.benchmarks.gpu_acceptance --out {out} --smoke'


@pytest.mark.parametrize('argv, message', [
    (['--iters', '5', '--warmup', '5'],
     'argument --warmup: must be >= 0 and below --iters (5), got 5'),
    (['--images', '0'], 'argument --images: must be >= 1, got 0'),
    (['--peak-tflops', '-1'], 'argument --peak-tflops: must be > 0'),
])
def test_bad_arguments_are_refused(tmp_path, argv, message):
    with pytest.raises(pytest.fail.Exception, match=re.escape(message)):
        run_tool([*ACCEPTANCE, '--out', tmp_path, '--smoke', *argv])
