"""Checkpoint writes are whole or absent, even when the writer is killed."""
import os
import signal
import subprocess
import sys
import time

import pytest
from mmengine.fileio import get_file_backend

from randsac_mm.checkpoint import AtomicLocalBackend, save_atomic
from randsac_mm.checkpoint.latest import latest_checkpoint

from .test_latest import save_training_checkpoint


def backend():
    return get_file_backend('x', backend_args=dict(backend='atomic_local'))


def test_registered_and_writes_bytes_and_text(tmp_path):
    b = backend()
    assert isinstance(b, AtomicLocalBackend)
    b.put(b'abc', tmp_path / 'sub' / 'f.pth')
    b.put_text('path', tmp_path / 'last_checkpoint')
    assert (tmp_path / 'sub' / 'f.pth').read_bytes() == b'abc'
    assert (tmp_path / 'last_checkpoint').read_text() == 'path'
    # Permissions follow the umask, like open(); no temporary file left.
    mode = (tmp_path / 'sub' / 'f.pth').stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask
    assert sorted(p.name for p in (tmp_path / 'sub').iterdir()) == ['f.pth']


def test_failed_write_keeps_previous_file(tmp_path, monkeypatch):
    target = tmp_path / 'epoch_1.pth'
    backend().put(b'old complete checkpoint', target)

    def crash(*args):
        raise OSError('disk full')
    monkeypatch.setattr(os, 'replace', crash)
    with pytest.raises(OSError, match='disk full'):
        backend().put(b'new', target)
    assert target.read_bytes() == b'old complete checkpoint'
    assert [p.name for p in tmp_path.iterdir()] == ['epoch_1.pth']


class Unpicklable:
    def __reduce__(self):
        raise ValueError('not picklable')


def test_save_atomic_writes_what_torch_load_reads(tmp_path):
    import torch
    target = tmp_path / 'encoder.pth'
    assert save_atomic({'state_dict': {'w': torch.arange(3)}},
                       target) == target
    assert torch.load(target)['state_dict']['w'].tolist() == [0, 1, 2]
    # An object torch.save cannot write fails before the file is touched.
    with pytest.raises(ValueError, match='not picklable'):
        save_atomic({'state_dict': Unpicklable()}, target)
    assert torch.load(target)['state_dict']['w'].tolist() == [0, 1, 2]
    assert [p.name for p in tmp_path.iterdir()] == ['encoder.pth']


WRITER = """
import sys
from mmengine.fileio import get_file_backend
import randsac_mm.checkpoint
b = get_file_backend('x', backend_args=dict(backend='atomic_local'))
print('writing', flush=True)
b.put(b'n' * (400 * 2**20), sys.argv[1])
"""


@pytest.mark.heavy
def test_sigkill_during_write_never_truncates(tmp_path):
    target = tmp_path / 'epoch_2.pth'
    save_training_checkpoint(target, epoch=1)
    old = target.read_bytes()
    proc = subprocess.Popen([sys.executable, '-c', WRITER, str(target)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == 'writing'
    # Kill once the temporary file exists and is growing.
    deadline = time.time() + 60
    while time.time() < deadline:
        tmp = [p for p in tmp_path.iterdir() if p.name.endswith('.tmp')]
        if tmp and tmp[0].stat().st_size > 0:
            break
        time.sleep(0.001)
    else:
        pytest.fail('the writer never started its temporary file')
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert target.read_bytes() == old
    # The next resume picks the complete file, never the partial one.
    assert latest_checkpoint(str(tmp_path)) == str(target)
