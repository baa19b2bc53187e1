"""python -m experiments.benchmarks.paper_scale_speed: a paper-scale row's
training step timed on both data paths, printed and written in the issue's
rows."""
import json
import os
import os.path as osp
import re
import threading

import pytest
from mmengine.config import Config

from experiments.benchmarks.paper_scale_speed import (
    BARRIER,
    PATHS,
    ROW,
    barrier,
    copies_row,
    path_config,
    run_copies,
)

from ...conftest import REPO_ROOT, run_tool


def test_both_paths_train_the_rows_model_on_the_rows_draws():
    on_device = path_config(ROW, 'on_device', 2, 64)
    per_sample = path_config(ROW, 'per_sample', 2, 64)
    row = Config.fromfile(osp.join(REPO_ROOT, ROW))
    assert on_device.model == per_sample.model == row.model
    assert on_device.optim_wrapper == per_sample.optim_wrapper
    held = on_device.train_dataloader.dataset
    assert held.type == 'InMemoryBatchImages'
    assert held.dataset.type == 'MNIST5k'  # installed with the package
    assert on_device.data_preprocessor.type == 'BatchCropDataPreprocessor'
    pipeline = per_sample.train_dataloader.dataset.pipeline
    steps = {step['type']: step for step in pipeline}
    assert list(steps)[0] == 'PerSampleSeed'
    layout = dict(steps['RandSACSegmentGenerator'])
    layout.pop('type')
    assert layout == row.train_dataloader.dataset.layout
    crop = dict(steps['RandomResizedCrop'])
    crop.pop('type')
    assert crop == row.train_dataloader.dataset.crop
    assert steps['RandomFlip']['prob'] == held.flip_prob
    assert per_sample.data_preprocessor.type == 'HostSamplesDataPreprocessor'
    assert per_sample.data_preprocessor.mean == row.data_preprocessor.mean
    for cfg in (on_device, per_sample):
        loader = cfg.train_dataloader
        assert (loader.batch_size, loader.num_workers) == (64, 2)


def test_a_row_off_the_batch_path_is_refused():
    with pytest.raises(ValueError, match='--config: .* is not on the batch'):
        path_config('configs/small_scale/'
                    'randsac_vit-mini-p4_square-m2_fashion-mnist.py',
                    'on_device', 0, 8)


@pytest.mark.heavy
def test_both_paths_are_timed_printed_and_written(tmp_path):
    path = tmp_path / 'speed.json'
    out = run_tool(['-m', 'experiments.benchmarks.paper_scale_speed',
                    '--batch-size', '4', '--steps', '2', '--warmup', '1',
                    '--workers', '0', '--out', path])
    result = json.loads(path.read_text())
    assert [r['path'] for r in result['rows']] == list(PATHS)
    for row in result['rows']:
        assert 0 < row['images_per_s'] < 1e6
        assert 0 <= row['data_wait_share'] < 1
        assert row['peak_memory'] > 0 and row['batch'] == 4
        assert row['mfu'] is None  # no peak known on a CPU
        assert f"{row['images_per_s']:8.0f} images/s" in out.stdout
    assert result['device'] == 'cpu' and result['commit']
    # ViT-T/4 with its 3-layer decoder: about 1 to 3 GFLOP an image.
    assert 5e8 < result['train_flops_per_image'] < 5e9
    assert result['machine']['cpu_count'] > 0


def test_copies_share_the_wall_time_from_the_first_start_to_the_last_end():
    def result(images, began, ended, rate):
        return dict(rows=[dict(path='per_sample', processes=1, batch=512,
                               images=images, began=began, ended=ended,
                               images_per_s=rate, step_s=512 / rate,
                               data_wait_share=0.01, peak_memory=3000.0,
                               mfu=0.01)])
    # Two copies of 1,000 images each, over 10 s and 12 s that overlap.
    row = copies_row([result(1000, 100.0, 110.0, 100.0),
                      result(1000, 101.0, 113.0, 83.3)], 2)
    assert row['processes'] == 2 and row['images'] == 2000
    assert (row['began'], row['ended'], row['seconds']) == (100.0, 113.0,
                                                            13.0)
    assert row['peak_memory'] == 6000.0  # what both need of the device
    assert row['images_per_s'] == pytest.approx(2000 / 13)
    assert row['per_process'] == [100.0, 83.3]
    # MFU grows with the images trained: one copy's per image, times all.
    assert row['mfu'] == pytest.approx(0.01 * (2000 / 13) / 100.0)


def test_a_copy_starts_timing_only_when_every_copy_is_ready(
        tmp_path, monkeypatch):
    assert barrier('per_sample') is None  # a lone run waits for no one
    monkeypatch.setenv(BARRIER, f'{tmp_path}:2')
    ready = barrier('per_sample')
    waiting = threading.Thread(target=ready)
    waiting.start()
    waiting.join(0.3)
    assert waiting.is_alive()  # the other copy is not ready yet
    (tmp_path / 'per_sample.99999').touch()
    waiting.join(5)
    assert not waiting.is_alive()
    assert sorted(os.listdir(tmp_path)) == [
        f'per_sample.{os.getpid()}', 'per_sample.99999']


def test_a_failing_copy_stops_the_others_and_names_the_failure():
    # Copies that exit at once (a bad argument), before any barrier: the
    # first failure stops the rest (killed, or exited by then) and raises,
    # naming the exit codes.
    with pytest.raises(RuntimeError) as error:
        run_copies(['--steps', '0'], 2, 'per_sample')
    assert re.fullmatch(
        r'--processes 2: a copy failed \(exit codes \[(2|-9), (2|-9)\]; '
        r'the others stopped\); its output is above', str(error.value))
    assert '2' in str(error.value).split('[')[1]  # one failed by itself
