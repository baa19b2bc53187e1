"""experiments.benchmarks.transfer_on_device, the GPU window's transfer
part: the options each run of the chain gets, what its logs are read as,
and the record it keeps, with tools/train.py stood in for (the whole chain
on the CPU, ``--device cpu --smoke``, takes about a minute)."""
import json
import os
import subprocess
import types

import pytest

from experiments.benchmarks import transfer_on_device as tod

from ...data_factory import write_logged_scalars


def arguments(*argv):
    return tod.parse_args(['--out', 'OUT', *argv])


def test_each_run_trains_what_the_chain_needs():
    args = arguments()
    assert args.iters == 50 and args.work_dir == os.path.join('OUT', 'work')
    data = dict(checkpoint='C.pth', scenes='S')
    pretrain = tod.run_options('pretrain', args, data)
    # One epoch of 50 batches, its checkpoint saved; no validation loader.
    assert {'train_dataloader.batch_size=64',
            'train_dataloader.dataset.indices=3200', 'train_cfg.max_epochs=1',
            'default_hooks.checkpoint.interval=1'} <= set(pretrain)
    assert not any(o.startswith('val_') for o in pretrain)
    upernet = tod.run_options('upernet', args, data)
    assert {'model.backbone.init_cfg.checkpoint=C.pth',
            'train_dataloader.dataset.data_root=S/',
            'val_dataloader.dataset.data_root=S/', 'train_cfg.max_iters=50',
            'train_cfg.val_interval=50'} <= set(upernet)
    detection = tod.run_options('mask-rcnn', args, data)
    assert {'train_cfg.max_epochs=1', 'train_cfg.val_interval=1',
            'val_evaluator.ann_file=S/annotations/instances_validation.json',
            'model.test_cfg.rcnn.score_thr=0.0'} <= set(detection)
    assert not any('num_workers' in o for o in pretrain + detection)
    smoke = arguments('--smoke')
    assert smoke.iters == 2
    assert {'train_dataloader.num_workers=0',
            'val_dataloader.persistent_workers=False'} <= set(
        tod.run_options('upernet', smoke, data))
    assert 'train_dataloader.batch_size=8' in tod.run_options(
        'pretrain', smoke, data)


def write_scalars(work_dir, entries):
    write_logged_scalars(work_dir, '20261207_000000', entries)


def test_a_runs_figures_come_from_its_logged_scalars(tmp_path):
    write_scalars(tmp_path, [
        dict(step=1, loss=3.0, time=9.0, memory=100),
        dict(step=2, loss=2.5, time=5.0, memory=120),
        dict(step=3, loss=2.0, time=0.2, memory=110),
        dict(step=4, loss=1.5, time=0.4, memory=110),
        dict(step=4, mIoU=12.345678, mAcc=20.0, aAcc=80.0)])
    row = tod.figures('upernet', 'c.py', str(tmp_path), 12.34,
                      ('mIoU', 'mAcc', 'aAcc'))
    assert row['iterations'] == 4 and row['seconds'] == 12.3
    assert row['s_per_iter'] == pytest.approx(0.3)  # the first two left out
    assert (row['first_loss'], row['last_loss']) == (3.0, 1.5)
    assert row['finite'] and row['peak_memory_mb'] == 120
    assert row['evaluation'] == dict(mIoU=12.3457, mAcc=20.0, aAcc=80.0)


def test_a_loss_that_is_not_finite_is_not_finite(tmp_path):
    write_scalars(tmp_path, [dict(step=1, loss=float('nan'), time=1.0)])
    row = tod.figures('pretrain', 'c.py', str(tmp_path), 1.0, ())
    assert not row['finite'] and row['evaluation'] is None


def fake_train_tool(tmp_path, fail=None):
    """A subprocess.run standing in for tools/train.py: it logs a line and
    writes the losses (and the evaluation, the pretraining's checkpoint)
    of the run its --work-dir names, or exits 2 for the run ``fail``;
    other commands (git) run."""
    real = subprocess.run

    def run(command, **kwargs):
        if not str(command[1]).endswith('tools/train.py'):
            return real(command, **kwargs)
        stdout = kwargs['stdout']
        work_dir = command[command.index('--work-dir') + 1]
        name = os.path.basename(work_dir)
        stdout.write(f'tools/train.py: {name} ran\n')
        if name == fail:
            stdout.write('tools/train.py: error: config: it broke\n')
            return types.SimpleNamespace(returncode=2)
        entries = [dict(step=1, loss=2.0, time=1.0),
                   dict(step=2, loss=1.0, time=0.5)]
        entries += {'upernet': [dict(step=2, mIoU=1.0, mAcc=2.0, aAcc=3.0)],
                    'mask-rcnn': [{'step': 2, 'coco/bbox_mAP': 0.1,
                                   'coco/segm_mAP': 0.2}]}.get(name, [])
        write_scalars(tmp_path / 'work' / name, entries)
        if name == 'pretrain':
            (tmp_path / 'work' / name / 'epoch_1.pth').write_bytes(b'')
        return types.SimpleNamespace(returncode=0)
    return run


def run_chain(tmp_path, monkeypatch, fail=None):
    monkeypatch.setattr(subprocess, 'run', fake_train_tool(tmp_path, fail))
    made = []
    monkeypatch.setattr(
        'experiments.digit_scenes.make_scenes',
        lambda out, train, val, log: made.append((train, val)))
    code = tod.main(['--out', str(tmp_path), '--device', 'cpu',
                     '--iters', '2', '--work-dir', str(tmp_path / 'work')])
    record = json.loads((tmp_path / 'transfer_on_device.json').read_text())
    return code, record, made


def test_the_chain_keeps_a_row_a_run_in_order(tmp_path, monkeypatch):
    code, record, made = run_chain(tmp_path, monkeypatch)
    assert code == 0 and record['failed'] is None
    assert made == [(16, 4)]  # 2 batches of 8; 2 an iteration to evaluate
    assert [r['run'] for r in record['runs']] == ['pretrain', 'upernet',
                                                  'mask-rcnn']
    assert record['runs'][2]['evaluation'] == {'coco/bbox_mAP': 0.1,
                                               'coco/segm_mAP': 0.2}
    assert record['device'] == 'cpu' and record['iterations'] == 2
    page = (tmp_path / 'transfer_on_device.md').read_text()
    assert '| mask-rcnn |' in page and 'coco/segm_mAP 0.2' in page
    assert (tmp_path / 'upernet.log').read_text() == \
        'tools/train.py: upernet ran\n'


def test_a_failed_run_is_named_and_what_ran_is_kept(tmp_path, monkeypatch):
    code, record, _ = run_chain(tmp_path, monkeypatch, fail='upernet')
    assert code == 1
    assert [r['run'] for r in record['runs']] == ['pretrain']
    assert record['failed'].startswith(
        "upernet: tools/train.py exited 2: ['tools/train.py: error: "
        "config: it broke']; see ")
    assert 'Failed: upernet' in (tmp_path / 'transfer_on_device.md'
                                 ).read_text()
