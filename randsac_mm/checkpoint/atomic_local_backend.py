"""A local file backend whose writes are atomic: whole file or old file."""
import os
import os.path as osp
import tempfile

from mmengine.fileio import LocalBackend, register_backend

__all__ = ['AtomicLocalBackend', 'save_atomic']


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
    name. Configs select it through the checkpoint hook::

        default_hooks = dict(checkpoint=dict(
            type='CheckpointHook', backend_args=dict(backend='atomic_local')))

    mmengine passes those ``backend_args`` both to ``save_checkpoint`` and to
    the hook's own file writes.
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


register_backend('atomic_local', AtomicLocalBackend)


def save_atomic(obj, path):
    """``torch.save(obj, path)`` through :class:`AtomicLocalBackend`: the
    whole file or none, no temporary file left behind on failure."""
    import io

    import torch
    data = io.BytesIO()
    torch.save(obj, data)
    AtomicLocalBackend().put(data.getvalue(), path)
    return path
