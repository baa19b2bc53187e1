"""The runs of tests/engine/test_atomic_checkpoint_hook.py that are killed
while they save: ``python -m tests.engine.killed_save ROOT POINT...``.

Each POINT's run trains in ROOT/<POINT with '-' for ' '> in a child forked
from this fresh interpreter, dies there as SIGKILL kills (no cleanup runs),
and ROOT/killed.json gets each point's wait status and, for a run that was
not killed, why: its traceback, or that it ended.

Why not fork the pytest worker: once a process has run a backward pass that
started autograd's device threads (another test file did, in the suite), a
child forked from it refuses to run backward ("Unable to handle autograd's
threading in combination with fork-based multiprocessing").
"""
import json
import os
import os.path as osp
import sys
import traceback

import torch
from mmengine.fileio import LocalBackend
from mmengine.model import BaseModel
from mmengine.runner import Runner

import randsac_mm.engine.hooks  # noqa: F401  (registers the hook)
from randsac_mm.checkpoint import atomic_local_backend

# The exit status of a killed run.
KILLED = 137


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


def _killed_at(point):
    """Patches (in a forked child) the writes of epoch_2.pth's save so that
    the process dies at ``point``, as SIGKILL would: no cleanup runs."""
    def die():
        os._exit(KILLED)

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



def folder(root, point):
    return osp.join(root, point.replace(' ', '-'))


def killed_run(work_dir, point):
    """The wait status of ``point``'s run and, if it was not killed, why."""
    os.makedirs(work_dir)
    pid = os.fork()
    if pid == 0:
        why = 'the run ended without being killed'
        try:
            torch.set_num_threads(1)
            _killed_at(point)
            runner(work_dir, epochs=3).train()
        except BaseException:
            why = traceback.format_exc()
        finally:
            with open(osp.join(work_dir, 'not_killed.txt'), 'w') as f:
                f.write(why)
            os._exit(1)
    status = os.waitpid(pid, 0)[1]
    failure = osp.join(work_dir, 'not_killed.txt')
    if not osp.exists(failure):
        return dict(status=status, why=None)
    with open(failure) as f:
        why = f.read()
    os.remove(failure)
    return dict(status=status, why=why)


if __name__ == '__main__':
    root, points = sys.argv[1], sys.argv[2:]
    runs = {point: killed_run(folder(root, point), point) for point in points}
    with open(osp.join(root, 'killed.json'), 'w') as f:
        json.dump(runs, f, indent=2)
