"""AtomicCheckpointHook: a run killed at any moment of a save keeps a whole
checkpoint, and the next run resumes from the newest one and removes what
the kill left (docs/guarantees.md)."""
import glob
import os
import os.path as osp
import traceback

import pytest
import torch
from mmengine.fileio import LocalBackend
from mmengine.model import BaseModel
from mmengine.runner import Runner

import randsac_mm.engine.hooks  # noqa: F401  (registers the hook)
from randsac_mm.checkpoint import atomic_local_backend
from randsac_mm.checkpoint.latest import latest_checkpoint
from randsac_mm.checkpoint.reading import training_progress

from ..conftest import LineHandler


class Linear(BaseModel):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 1)

    def forward(self, inputs, mode='loss'):
        return dict(loss=self.fc(inputs).pow(2).mean())


def runner(work_dir, epochs, keep=1, resume_from=None):
    """``epochs`` epochs of 2 iterations, a checkpoint after each, the
    latest ``keep`` kept."""
    return Runner(
        model=Linear(), work_dir=str(work_dir),
        train_dataloader=dict(
            dataset=[dict(inputs=torch.full((4,), float(i)))
                     for i in range(4)],
            sampler=dict(type='DefaultSampler', shuffle=False),
            collate_fn=dict(type='default_collate'), batch_size=2),
        optim_wrapper=dict(optimizer=dict(type='SGD', lr=0.01)),
        train_cfg=dict(by_epoch=True, max_epochs=epochs),
        default_hooks=dict(checkpoint=dict(
            type='AtomicCheckpointHook', interval=1, max_keep_ckpts=keep)),
        resume=resume_from is not None, load_from=resume_from,
        default_scope='mmengine')


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


def _killed_at(point):
    """Patches (in a forked child) the writes of epoch_2.pth's save so that
    the process dies at ``point``, as SIGKILL would: no cleanup runs."""
    def die():
        os._exit(137)

    def is_second(path):
        return osp.basename(str(path)) == 'epoch_2.pth'
    backend = atomic_local_backend.AtomicLocalBackend
    write = backend._atomic_write
    real_replace, real_fsync, real_fdopen = os.replace, os.fsync, os.fdopen
    real_remove = LocalBackend.remove
    state = {}

    def atomic_write(data, filepath):
        state['second'] = is_second(filepath)
        state['pointer'] = osp.basename(str(filepath)) == 'last_checkpoint'
        if point == 'before the write' and state['second']:
            die()
        write(data, filepath)
        if state.get('saved') and state['pointer'] and \
                point == 'after the pointer':
            die()

    class HalfWritten:
        def __init__(self, f):
            self.f = f

        def write(self, data):
            self.f.write(data[:len(data) // 2])
            self.f.flush()
            die()

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *args):
            return self.f.__exit__(*args)

    def fdopen(*args, **kwargs):
        f = real_fdopen(*args, **kwargs)
        if point == 'during the write' and state.get('second'):
            return HalfWritten(f)
        return f

    def fsync(fd):
        real_fsync(fd)
        if point == 'before the rename' and state.get('second'):
            die()

    def replace(src, dst):
        real_replace(src, dst)
        if is_second(dst):
            state['saved'] = True
            if point == 'after the rename':
                die()

    def remove(self, filepath):
        real_remove(self, filepath)
        if point == 'after the removal':
            die()
    backend._atomic_write = staticmethod(atomic_write)
    atomic_local_backend.os.fdopen = fdopen
    atomic_local_backend.os.fsync = fsync
    atomic_local_backend.os.replace = replace
    LocalBackend.remove = remove


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


@pytest.mark.parametrize('point', KILLS)
def test_a_kill_at_any_point_of_a_save_keeps_a_whole_checkpoint(
        tmp_path, point):
    """max_keep_ckpts=1, as the demo and the studies save: the run is
    killed while it saves epoch 2 (in a forked process, as SIGKILL kills),
    then resumed."""
    failure = tmp_path / 'not_killed.txt'
    pid = os.fork()
    if pid == 0:  # the run that is killed
        try:
            torch.set_num_threads(1)
            _killed_at(point)
            runner(tmp_path, epochs=3).train()
            failure.write_text('the run ended without being killed')
        except BaseException:
            failure.write_text(traceback.format_exc())
        finally:
            os._exit(1)  # not killed: the test fails below
    status = os.waitpid(pid, 0)[1]
    assert status >> 8 == 137, (
        f'the save was not killed (wait status {status}):\n'
        + (failure.read_text() if failure.exists() else ''))
    failure.unlink(missing_ok=True)
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
