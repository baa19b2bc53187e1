"""Tools on a checkpoint the suite trains: the pictures of
tools/visualization/vis_reconstruction.py and the readouts of
tools/analysis/eval_frozen.py."""
import json

import numpy as np
import pytest
from PIL import Image

from randsac_mm.datasets import MNIST5k

from ..conftest import REPO_ROOT, run_tool

pytestmark = pytest.mark.heavy
CONFIG = f'{REPO_ROOT}/configs/demo/randsac_vit-mini-p4_square-16to4_mnist.py'


@pytest.fixture(scope='module')
def checkpoint(tmp_path_factory):
    """One epoch of the demo's pretraining on 128 digits."""
    work = tmp_path_factory.mktemp('vis_pretrain')
    run_tool(['tools/train.py', CONFIG, '--device', 'cpu', '--work-dir', work,
              '--cfg-options',
              'train_dataloader.dataset.indices=128', 'train_cfg.max_epochs=1',
              'default_hooks.checkpoint.interval=1'])
    return work / 'epoch_1.pth'


def test_images_from_files(checkpoint, tmp_path):
    digit = MNIST5k(split='test').get_data_info(0)['img']
    Image.fromarray(digit).save(tmp_path / 'digit.png')
    wide = np.random.default_rng(0).integers(0, 255, (40, 64, 3), np.uint8)
    Image.fromarray(wide).save(tmp_path / 'wide.jpg')
    out = tmp_path / 'out'
    said = run_tool(['tools/visualization/vis_reconstruction.py', CONFIG,
                     checkpoint, '--img', tmp_path / 'digit.png',
                     tmp_path / 'wide.jpg', '--out-dir', out])
    # The progress bar counts steps (it read "0/4" for 2 images): said.
    assert f'2 images: predicting them, then writing reconstruction.png and ' \
        f'2 GIFs to {out} (4 steps)' in said.stderr
    figure = Image.open(out / 'reconstruction.png')
    assert figure.size[0] > 300 and figure.size[1] > 300
    for name in ('digit', 'wide'):
        gif = Image.open(out / f'{name}_reveal.gif')
        assert gif.n_frames == 17  # 16 squares, and the empty first frame
        assert gif.size == (128, 128)  # 32 px shown 4x


def test_images_from_the_configs_dataset(checkpoint, tmp_path):
    run_tool(['tools/visualization/vis_reconstruction.py', CONFIG,
              checkpoint, '--dataset', '--num', '3', '--out-dir', tmp_path])
    # Three of the config's 4000 training digits, spread over them.
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        'reconstruction.png', 'sample0_reveal.gif', 'sample1999_reveal.gif',
        'sample3999_reveal.gif']


def test_bad_input_is_refused(checkpoint, tmp_path):
    with pytest.raises(pytest.fail.Exception, match="no such file"):
        run_tool(['tools/visualization/vis_reconstruction.py', CONFIG,
                  checkpoint, '--img', tmp_path / 'missing.png'])
    mae = f'{REPO_ROOT}/configs/small_scale/mae_vit-mini-p4_fashion-mnist.py'
    with pytest.raises(pytest.fail.Exception,
                       match='not a RandSAC pretraining config'):
        run_tool(['tools/visualization/vis_reconstruction.py', mae,
                  checkpoint, '--dataset'])


def test_frozen_evaluation_of_the_trained_checkpoint(checkpoint, tmp_path):
    """tools/analysis/eval_frozen.py, the k-NN and probe of any checkpoint,
    on the same checkpoint: both accuracies, and the JSON it writes."""
    data = f'{REPO_ROOT}/configs/_base_/datasets/mnist5k.py'
    out = run_tool(['tools/analysis/eval_frozen.py', CONFIG, checkpoint,
                    '--data', data, '--probe-epochs', '5', '--out',
                    tmp_path / 'r.json'])
    import json
    result = json.loads((tmp_path / 'r.json').read_text())
    assert 10 < result['knn'] <= 100 and 10 < result['linear'] <= 100
    assert result['feature_dim'] == 96
    assert f"k-NN (k=20) {result['knn']:.2f}%" in out.stdout
    with pytest.raises(pytest.fail.Exception, match='CHECKPOINT or'):
        run_tool(['tools/analysis/eval_frozen.py', CONFIG, '--data', data])
    with pytest.raises(pytest.fail.Exception,
                       match=r'--probe-seeds must be distinct, got \[1, 1\]'):
        run_tool(['tools/analysis/eval_frozen.py', CONFIG, checkpoint,
                  '--data', data, '--probe-seeds', '1', '1'])


def test_eval_frozen_reads_out_every_probe(checkpoint, tmp_path):
    """tools/analysis/eval_frozen.py on the trained checkpoint: the linear
    probe, k-NN, the attentive probe and the per-layer probe."""
    out = tmp_path / 'eval.json'
    printed = run_tool([
        'tools/analysis/eval_frozen.py', CONFIG, checkpoint, '--data',
        f'{REPO_ROOT}/configs/_base_/datasets/mnist5k.py', '--probe',
        'linear', 'knn', 'attentive', 'layers', '--probe-epochs', '5',
        '--train-images', '1000', '--test-images', '300', '--probe-seeds',
        '0', '1', '--out', out]).stdout
    result = json.loads(out.read_text())
    # Trained once per probe seed on the same features: each seed's
    # accuracies, their means and standard deviations.
    assert result['probe_seeds'] == [0, 1]
    per_seed = result['per_probe_seed']
    seed_1_line, = [line for line in printed.splitlines()
                    if line.startswith('probe seed 1: ')]
    for readout in ('linear', 'knn', 'attentive'):
        values = [one[readout] for one in per_seed]
        assert 10 < min(values) <= max(values) <= 100, result  # chance: 10
        assert result[readout] == pytest.approx(sum(values) / 2)
        assert result['probe_seed_sd'][readout] == pytest.approx(
            abs(values[0] - values[1]) / 2 ** 0.5)
        assert f'{values[1]:.2f}%' in seed_1_line
        assert f'{result[readout]:.2f}% (sd ' in printed
    assert result['probe_seed_sd']['knn'] == 0  # the k-NN has no seed
    # One probe seed's entry is what a run with that --seed reads out.
    one_seed = tmp_path / 'seed1.json'
    run_tool(['tools/analysis/eval_frozen.py', CONFIG, checkpoint, '--data',
              f'{REPO_ROOT}/configs/_base_/datasets/mnist5k.py', '--probe',
              'attentive', '--probe-epochs', '5', '--train-images', '1000',
              '--test-images', '300', '--seed', '1', '--out', one_seed])
    assert json.loads(one_seed.read_text())['attentive'] == \
        per_seed[1]['attentive']
    # ViT-mini/4 of the demo: 6 layers; the last is the linear feature.
    assert len(result['layer_linear']) == 6
    assert result['layer_linear'][-1] == pytest.approx(result['linear'])
    assert f"best: layer {result['best_layer']}" in printed
