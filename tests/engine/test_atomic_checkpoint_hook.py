"""AtomicCheckpointHook: a run killed at any moment of a save keeps a whole
checkpoint, and the next run resumes from the newest one and removes what
the kill left (docs/guarantees.md)."""
import glob
import json
import os
import os.path as osp
from pathlib import Path

import pytest
import torch
from mmengine.fileio import LocalBackend

from randsac_mm.checkpoint import atomic_local_backend
from randsac_mm.checkpoint.latest import latest_checkpoint
from randsac_mm.checkpoint.reading import training_progress

from ..conftest import LineHandler, run_tool
from .killed_save import KILLED, folder, runner


def files(work_dir):
    return sorted(p for p in os.listdir(work_dir)
                  if p.endswith(('.pth', '.tmp')))


def pointer(work_dir):
    with open(osp.join(work_dir, 'last_checkpoint')) as f:
        return osp.basename(f.read())


def test_the_new_checkpoint_is_whole_and_named_before_the_old_goes(
        tmp_path, monkeypatch):
    """mmengine removes epoch_1.pth before it writes epoch_2.pth; here the
    removal comes after the new file and the pointer."""
    events = []
    write = atomic_local_backend.AtomicLocalBackend._atomic_write
    remove = LocalBackend.remove

    def written(data, filepath):
        write(data, filepath)
        events.append(('written', osp.basename(str(filepath))))

    def removed(self, filepath):
        remove(self, filepath)
        events.append(('removed', osp.basename(str(filepath))))
    monkeypatch.setattr(atomic_local_backend.AtomicLocalBackend,
                        '_atomic_write', staticmethod(written))
    monkeypatch.setattr(LocalBackend, 'remove', removed)
    runner(tmp_path, epochs=3).train()
    assert events == [
        ('written', 'epoch_1.pth'), ('written', 'last_checkpoint'),
        ('written', 'epoch_2.pth'), ('written', 'last_checkpoint'),
        ('removed', 'epoch_1.pth'),
        ('written', 'epoch_3.pth'), ('written', 'last_checkpoint'),
        ('removed', 'epoch_2.pth')]
    assert files(tmp_path) == ['epoch_3.pth']
    assert pointer(tmp_path) == 'epoch_3.pth'


def test_max_keep_ckpts_keeps_as_many_and_survives_a_resume(tmp_path):
    runner(tmp_path, epochs=3, keep=2).train()
    assert files(tmp_path) == ['epoch_2.pth', 'epoch_3.pth']
    # The resumed run knows which files it keeps: epoch_2 goes at epoch 4.
    runner(tmp_path, epochs=4, keep=2,
           resume_from=str(tmp_path / 'epoch_3.pth')).train()
    assert files(tmp_path) == ['epoch_3.pth', 'epoch_4.pth']


# point: (the checkpoints left, the one resumed, a temporary file left).
KILLS = {
    'before the write': (['epoch_1.pth'], 'epoch_1.pth', False),
    'during the write': (['epoch_1.pth'], 'epoch_1.pth', True),
    'before the rename': (['epoch_1.pth'], 'epoch_1.pth', True),
    'after the rename': (['epoch_1.pth', 'epoch_2.pth'], 'epoch_2.pth',
                         False),
    'after the pointer': (['epoch_1.pth', 'epoch_2.pth'], 'epoch_2.pth',
                          False),
    'after the removal': (['epoch_2.pth'], 'epoch_2.pth', False),
}


@pytest.fixture(scope='module')
def killed(tmp_path_factory):
    """Every point's killed run (tests/engine/killed_save.py): its work
    dir and how it ended."""
    root = tmp_path_factory.mktemp('killed')
    run_tool(['-m', 'tests.engine.killed_save', root, *KILLS],
             own_process=True, timeout=300)
    runs = json.loads((root / 'killed.json').read_text())
    return {point: (Path(folder(root, point)), run)
            for point, run in runs.items()}


@pytest.mark.parametrize('point', KILLS)
def test_a_kill_at_any_point_of_a_save_keeps_a_whole_checkpoint(
        killed, point):
    """max_keep_ckpts=1, as the demo and the studies save: the run is
    killed while it saves epoch 2, then resumed."""
    tmp_path, run = killed[point]
    assert run['status'] >> 8 == KILLED, (
        f'the save was not killed (wait status {run["status"]}): '
        f'{run["why"]}')
    left, resumed, temporary = KILLS[point]
    assert [f for f in files(tmp_path) if f.endswith('.pth')] == left
    assert bool(glob.glob(str(tmp_path / '.epoch_2.pth.*.tmp'))) == \
        temporary
    # The pointer names a whole checkpoint (possibly the older one).
    assert pointer(tmp_path) in left
    chosen = latest_checkpoint(str(tmp_path))
    assert osp.basename(chosen) == resumed
    assert training_progress(chosen)[0] == int(resumed[6])
    # The next run resumes, removes what the kill left, and says so.
    again = runner(tmp_path, epochs=3, resume_from=chosen)
    said = []
    again.logger.addHandler(LineHandler(said))
    again.train()
    assert files(tmp_path) == ['epoch_3.pth']
    assert pointer(tmp_path) == 'epoch_3.pth'
    assert any('removed 1 temporary file(s) of a save that did not finish'
               in line for line in said) == temporary
    # Resumed from epoch 2 with epoch 1 still there: it removes it.
    assert any(line.startswith('removed epoch_1.pth: superseded')
               for line in said) == (left == ['epoch_1.pth', 'epoch_2.pth'])


def test_a_full_disk_is_one_line_naming_the_file_and_keeps_the_older(
        tmp_path, monkeypatch, capsys):
    """Before: a 40-line traceback ending in OSError: [Errno 28], naming no
    file."""
    import errno

    from ..conftest import DEMO_CLASSIFIER
    from ..tool_runs import run_in_process
    write = atomic_local_backend.AtomicLocalBackend._write_and_rename

    def full_at_epoch_2(data, filepath):
        if osp.basename(filepath) == 'epoch_2.pth':
            raise OSError(errno.ENOSPC, 'No space left on device')
        write(data, filepath)
    monkeypatch.setattr(atomic_local_backend.AtomicLocalBackend,
                        '_write_and_rename', staticmethod(full_at_epoch_2))
    code, out, err = run_in_process(
        ['tools/train.py', DEMO_CLASSIFIER, '--device', 'cpu', '--work-dir',
         str(tmp_path), '--cfg-options', 'train_cfg.max_epochs=2',
         'default_hooks.checkpoint.interval=1',
         'train_dataloader.dataset.indices=64', 'train_cfg.val_interval=10'],
        monkeypatch, capsys)
    assert code == 1
    [line] = err.strip().splitlines()[-1:]
    assert 'Traceback' not in err
    assert line.startswith(f'tools/train.py: error: no space left to write '
                           f'{tmp_path}/epoch_2.pth (')
    assert line.endswith('MiB): No space left on device; nothing was '
                         'replaced (the files already there are whole); '
                         'free space on that disk, or write elsewhere')
    assert files(tmp_path) == ['epoch_1.pth']
    assert pointer(tmp_path) == 'epoch_1.pth'


def test_a_best_score_s_save_is_kept_and_pruned_as_the_others(tmp_path):
    """mmengine saves the latest step again when a validation finds a new
    best score: at epoch 3 of a run that saves every 2, a new file
    epoch_3.pth, which max_keep_ckpts counts and removes in turn."""
    from mmengine.evaluator import BaseMetric
    from mmengine.runner import Runner

    from .killed_save import Linear

    class Rising(BaseMetric):
        """A score that improves at every validation."""
        calls = 0

        def process(self, data_batch, data_samples):
            self.results.append(0)

        def compute_metrics(self, results):
            Rising.calls += 1
            return dict(score=float(Rising.calls))

    class Validated(Linear):
        def val_step(self, data):
            return [None]
    data = dict(dataset=[dict(inputs=torch.full((4,), float(i)))
                         for i in range(4)],
                sampler=dict(type='DefaultSampler', shuffle=False),
                collate_fn=dict(type='default_collate'), batch_size=2)
    Runner(model=Validated(), work_dir=str(tmp_path), train_dataloader=data,
           val_dataloader=data, val_evaluator=[Rising()],
           val_cfg=dict(), optim_wrapper=dict(optimizer=dict(type='SGD',
                                                            lr=0.01)),
           train_cfg=dict(by_epoch=True, max_epochs=4, val_interval=1),
           default_hooks=dict(checkpoint=dict(
               type='AtomicCheckpointHook', interval=2, max_keep_ckpts=1,
               save_best='score', rule='greater')),
           default_scope='mmengine').train()
    assert files(tmp_path) == ['best_score_epoch_4.pth', 'epoch_4.pth']
    assert pointer(tmp_path) == 'epoch_4.pth'
