"""Reliability of training runs, end to end on the CPU, on both data paths
(the per-sample pipeline and the batch path of small images):

- 2 gloo processes compute, iteration by iteration, the losses of 1 process
  with the same global batch and seed, on the same sample layouts (and
  crops, on the batch path);
- a run killed with SIGKILL and resumed continues with the losses, layouts
  (and crops) of an uninterrupted run;
- ``load_from`` takes a real training checkpoint under weights-only
  loading.
"""
import json
import os
import signal
import subprocess
import sys
import time

import pytest
import torch

from ..conftest import REPO_ROOT, free_port, run_tool

pytestmark = pytest.mark.heavy

DEMO = os.path.join(REPO_ROOT, 'configs', 'demo',
                    'randsac_vit-mini-p4_square-16to4_digits.py')
MAIN = os.path.join(REPO_ROOT, 'configs', 'randsac_vit-b_in1k.py')


def main_config_randomness():
    """The main config's ``randomness`` (per-process seeds with
    ``diff_rank_seed``): what 8 GPUs run with."""
    from mmengine.config import Config
    randomness = Config.fromfile(MAIN).randomness.to_dict()
    assert randomness.get('diff_rank_seed'), randomness
    return randomness


DATA_PATHS = ('per_sample', 'batch')


def batch_path_dataset(images):
    """The demo's data set on the batch data path: held by
    ``InMemoryBatchImages`` with the demo pipeline's crop and layout, and a
    flip (the demo has none: here every draw is exercised)."""
    from mmengine.config import Config
    demo = Config.fromfile(DEMO)
    dataset = demo.train_dataloader.dataset.to_dict()
    steps = {step.pop('type'): step for step in dataset.pop('pipeline')}
    return dict(_delete_=True, type='InMemoryBatchImages',
                dataset=dict(dataset, indices=images),
                crop=steps['RandomResizedCrop'], flip_prob=0.5,
                layout=steps['RandSACSegmentGenerator'])


def write_config(tmp_path, images, batch_size, epochs, data_path):
    """The demo pretraining config, small, logging every iteration, with
    the recorder hook and the main config's randomness, on ``data_path``
    (one of ``DATA_PATHS``)."""
    cfg = tmp_path / 'cfg.py'
    dataset = dict(indices=images)
    crop = ''
    if data_path == 'batch':  # the crop in the data preprocessor
        dataset = batch_path_dataset(images)
        crop = "data_preprocessor = dict(type='BatchCropDataPreprocessor')"
    cfg.write_text(f"""
_base_ = [{DEMO!r}]
randomness = {main_config_randomness()!r}
custom_imports = dict(imports=['randsac_mm.registration',
                               'tests.tools.recorder_hook'],
                      allow_failed_imports=False)
custom_hooks = [dict(type='MeanLogsOverProcessesHook'),
                dict(type='NonFiniteLossHook'),
                dict(type='PerSampleSeedHook'),
                dict(type='LayoutRecorderHook')]
train_dataloader = dict(batch_size={batch_size}, dataset={dataset!r})
{crop}
train_cfg = dict(max_epochs={epochs})
log_processor = dict(window_size=1)
default_hooks = dict(logger=dict(interval=1),
                     checkpoint=dict(interval=1, max_keep_ckpts=5))
""")
    return cfg


ENV = {'PYTHONPATH': REPO_ROOT}


def records(work_dir, rank=0):
    """The LayoutRecorderHook's records of ``rank``, in order; a line a
    SIGKILL cut short (no closing brace) is skipped."""
    path = work_dir / f'record_rank{rank}.jsonl'
    return [json.loads(line) for line in path.read_text().splitlines()
            if line.endswith('}')]


def same_draws(a, b, key):
    """Whether two lists of records drew the same ``key`` (layouts or
    crops) over the same samples, in any order."""
    return sorted(json.dumps(x) for x in a[key]) == \
        sorted(json.dumps(x) for x in b[key])


@pytest.mark.parametrize('data_path', DATA_PATHS)
def test_two_processes_compute_what_one_process_computes(tmp_path,
                                                         data_path):
    single, dist = tmp_path / 'single', tmp_path / 'dist'
    run_tool(['tools/train.py', write_config(tmp_path, 128, 32, 2, data_path),
              '--device', 'cpu', '--work-dir', single], env=ENV)
    (tmp_path / 'd').mkdir()
    run_tool(['tools/dist_train.sh',
              write_config(tmp_path / 'd', 128, 16, 2, data_path),
              '2', '--device', 'cpu', '--work-dir', dist],
             env=dict(ENV, PORT=str(free_port())))
    one = records(single)
    ranks = [records(dist, 0), records(dist, 1)]
    assert [r['iter'] for r in one] == list(range(1, 9))
    assert [r['iter'] for r in ranks[0]] == [r['iter'] for r in ranks[1]] \
        == list(range(1, 9))
    for it, (a, r0, r1) in enumerate(zip(one, *ranks), start=1):
        # The logged (process-averaged) loss is the single-process loss.
        assert r0['loss'] == r1['loss']
        assert r0['loss'] == pytest.approx(a['loss'], rel=1e-5), it
        # The global batch gets the same layouts; no layout is shared by
        # the two ranks.
        both = {key: r0[key] + r1[key] for key in ('layouts', 'crops')
                if key in a}
        assert same_draws(both, a, 'layouts'), it
        assert not {json.dumps(x) for x in r0['layouts']} & \
            {json.dumps(x) for x in r1['layouts']}
        if data_path == 'batch':  # and the same crops and flips
            assert same_draws(both, a, 'crops'), it
    # The losses moved: the runs trained, and agree while doing it.
    assert one[-1]['loss'] < one[0]['loss']


def train_cmd(cfg, work_dir, *flags):
    return [sys.executable, 'tools/train.py', str(cfg), '--device', 'cpu',
            '--work-dir', str(work_dir), *flags]


@pytest.mark.parametrize('data_path', DATA_PATHS)
def test_sigkilled_run_resumes_exactly(tmp_path, data_path):
    # 8 iterations an epoch
    cfg = write_config(tmp_path, 256, 32, 3, data_path)
    full, killed = tmp_path / 'full', tmp_path / 'killed'
    env = dict(os.environ, OMP_NUM_THREADS='1', **ENV)
    # The reference in this process (no interpreter to start); the run to
    # kill in its own, where a SIGKILL lands.
    run_tool(['tools/train.py', cfg, '--device', 'cpu', '--work-dir', full],
             env=ENV)

    proc = subprocess.Popen(train_cmd(cfg, killed), cwd=REPO_ROOT, env=env,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    record = killed / 'record_rank0.jsonl'
    deadline = time.time() + 300
    # Kill in the middle of epoch 2: epoch_1.pth saved, epoch 2 running.
    while time.time() < deadline and proc.poll() is None:
        if record.exists() and len(records(killed)) >= 11:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    done = records(killed)
    assert 11 <= len(done) < 24, 'the kill did not land mid-run'
    saved = sorted(p.name for p in killed.glob('*.pth'))
    assert 'epoch_1.pth' in saved and 'epoch_3.pth' not in saved

    resumed = run_tool(['tools/train.py', cfg, '--device', 'cpu',
                        '--work-dir', killed,
                        '--resume'], env=ENV)
    log = resumed.stdout + resumed.stderr
    start = 8 * len(saved)  # iterations the last checkpoint holds
    assert f'resumed epoch: {len(saved)}, iter: {start}' in log
    after = records(killed)[len(done):]
    reference = records(full)
    assert [r['iter'] for r in after] == list(range(start + 1, 25))
    for r in after:
        ref = reference[r['iter'] - 1]
        assert r['layouts'] == ref['layouts'], r['iter']
        assert r.get('crops') == ref.get('crops'), r['iter']
        assert ('crops' in r) == (data_path == 'batch')
        assert r['loss'] == pytest.approx(ref['loss'], rel=1e-6), r['iter']
    # The final weights are the uninterrupted run's.
    import randsac_mm.registration  # noqa: F401
    a = torch.load(full / 'epoch_3.pth')['state_dict']
    b = torch.load(killed / 'epoch_3.pth')['state_dict']
    for name in a:
        torch.testing.assert_close(a[name], b[name], rtol=1e-5, atol=1e-6)


def test_load_from_a_training_checkpoint(tmp_path):
    cfg = write_config(tmp_path, 64, 32, 1, 'per_sample')
    run_tool(['tools/train.py', cfg, '--device', 'cpu', '--work-dir',
              tmp_path / 'a'], env=ENV)
    ckpt = tmp_path / 'a' / 'epoch_1.pth'
    proc = run_tool(['tools/train.py', cfg, '--device', 'cpu',
                     '--work-dir', tmp_path / 'b',
                     '--cfg-options', f'load_from={ckpt}'], env=ENV)
    log = proc.stdout + proc.stderr
    assert f'Load checkpoint from {ckpt}' in log
    # Weights, not the schedule: training starts at epoch 1 again.
    assert records(tmp_path / 'b')[0]['iter'] == 1
