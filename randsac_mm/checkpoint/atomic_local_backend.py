"""A local file backend whose writes are atomic: whole file or old file."""
import errno
import os
import os.path as osp
import re
import tempfile

from mmengine.fileio import LocalBackend, register_backend

__all__ = ['ATOMIC_LOCAL', 'AtomicLocalBackend', 'DiskFullError',
           'is_temporary_file', 'save_atomic', 'write_json']

# The backend's name in mmengine's ``backend_args``.
ATOMIC_LOCAL = 'atomic_local'
# What a write leaves while it runs: '.<target's name>.<mkstemp's 8
# characters>.tmp' beside the target.
_TEMPORARY = re.compile(r'\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp')


# A full disk, or a full quota.
FULL = (errno.ENOSPC, errno.EDQUOT)


class DiskFullError(OSError):
    """A write that found no space: names the file and its size, and that
    nothing was replaced."""

    def __init__(self, filepath, size, cause):
        super().__init__(
            cause.errno,
            f'no space left to write {filepath} ({size / 2**20:.1f} MiB): '
            f'{cause.strerror}; nothing was replaced (the files already '
            'there are whole); free space on that disk, or write elsewhere')
        self.path = filepath

    def __str__(self):
        return self.strerror  # without OSError's '[Errno 28]'


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


class AtomicLocalBackend(LocalBackend):
    """mmengine's ``LocalBackend``, but ``put`` and ``put_text`` write a
    temporary file in the target's folder, flush it to disk and rename it
    over the target (``os.replace``, atomic on POSIX and Windows).

    A process killed while saving therefore leaves the previous checkpoint
    (and the previous ``last_checkpoint`` pointer) intact, plus at most a
    stray ``.*.tmp`` file; never a truncated checkpoint under the real
    name. ``randsac_mm.engine.hooks.AtomicCheckpointHook``, the configs'
    checkpoint hook, selects it (``backend_args=dict(backend=
    'atomic_local')``, which mmengine passes both to ``save_checkpoint`` and
    to the hook's own file writes) and removes what a killed write left.
    """

    def put(self, obj, filepath):
        """Writes bytes ``obj`` to ``filepath`` atomically."""
        self._atomic_write(obj, filepath)

    def put_text(self, obj, filepath, encoding='utf-8'):
        """Writes str ``obj`` to ``filepath`` atomically."""
        self._atomic_write(obj.encode(encoding), filepath)

    @staticmethod
    def _atomic_write(data, filepath):
        filepath = str(filepath)
        try:
            AtomicLocalBackend._write_and_rename(data, filepath)
        except OSError as error:
            if error.errno in FULL:
                raise DiskFullError(filepath, len(data), error) from error
            raise

    @staticmethod
    def _write_and_rename(data, filepath):
        folder = osp.dirname(osp.abspath(filepath))
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            prefix=f'.{osp.basename(filepath)}.', suffix='.tmp', dir=folder)
        try:
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600
            with os.fdopen(fd, 'wb') as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, filepath)
        except BaseException:
            if osp.exists(tmp):
                os.remove(tmp)
            raise


register_backend(ATOMIC_LOCAL, AtomicLocalBackend)


def is_temporary_file(path):
    """Whether ``path`` is the name of a write of this backend that did
    not finish (a process killed while writing leaves it)."""
    return _TEMPORARY.fullmatch(osp.basename(path)) is not None


def save_atomic(obj, path):
    """``torch.save(obj, path)`` through :class:`AtomicLocalBackend`: the
    whole file or none, no temporary file left behind on failure."""
    import io

    import torch
    data = io.BytesIO()
    torch.save(obj, data)
    AtomicLocalBackend().put(data.getvalue(), path)
    return path


def write_json(path, obj):
    """Writes ``obj`` as indented JSON to ``path`` through
    :class:`AtomicLocalBackend` (its folder made): the whole file or the one
    before, never half of one, and no temporary file left behind on
    failure. Every record, metrics file and benchmark result is written so.
    """
    import json
    AtomicLocalBackend().put_text(json.dumps(obj, indent=2), path)
    return path
