"""A work dir belongs to one run: the run holds a lock in it.

Two runs started into one work dir would both train, writing over each
other's checkpoints and dumped config, and both exit 0. A run holds
``<work_dir>/.run.lock`` (``fcntl.flock``, exclusive) from before its
Runner is built to its end; the file says who holds it (process, host,
command, since when). A second run into the folder is refused in one line
that names the holder. The kernel releases a lock when its process dies,
however it dies: a lock file left by a killed run is taken over, and said.
Under DDP only rank 0 holds it (every rank writes into the same folder).

The file stays in the folder, emptied when its run ends. Removing it would
let two runs hold it at once: one that opened the file just before the
removal locks the removed file, while the next run locks a new one. So the
file is never removed, and a run that locked a file its path no longer
names (removed by hand) locks the path's file again.

Linux and macOS (``fcntl``); on a network file system ``flock`` works
where the file system supports it (NFS v4 does).
"""
import contextlib
import fcntl
import json
import os
import os.path as osp
import socket
import sys
import time

from ..cli.errors import UserError

__all__ = ['LOCK_NAME', 'check_work_dir_free', 'hold_work_dir']

LOCK_NAME = '.run.lock'


def _holder_of(path):
    """What the lock file says of its holder (a dict, {} when it says
    nothing readable)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _described(holder):
    """'process 123 on node1 (tools/train.py x.py, since 2026-12-02
    03:41:02 UTC)'."""
    if not holder:
        return 'another process'
    what = f"process {holder.get('pid')} on {holder.get('host')}"
    details = [d for d in (holder.get('command'),
                           holder.get('since') and
                           f"since {holder['since']}") if d]
    return what + (f" ({', '.join(details)})" if details else '')


def _acquire(work_dir, argument):
    """The open lock file of ``work_dir``, locked, and what its previous
    holder wrote ('' when the file is new or was emptied by a run that
    ended).

    Raises:
        UserError: another process holds it.
    """
    os.makedirs(work_dir, exist_ok=True)
    path = osp.join(work_dir, LOCK_NAME)
    while True:
        f = open(path, 'a+')
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder_of(path)
            f.close()
            raise UserError(
                f'{argument}: {work_dir} is in use by another run, '
                f'{_described(holder)}: two runs in one folder would write '
                "over each other's checkpoints; wait for it to end, or give "
                f'another {argument}') from None
        if _names(path, f):
            break
        f.close()  # the path names another file now: lock that one
    f.seek(0)
    previous = f.read().strip()
    return f, previous and _holder_of(path)


def _names(path, f):
    """Whether ``path`` still names the open file ``f``."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(f.fileno()))
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def hold_work_dir(work_dir, argument='--work-dir', log=print):
    """Holds ``work_dir``'s lock while the block runs (the run), then
    empties the lock file and releases it (the file stays).

    Args:
        work_dir (str): the run's folder (made if missing).
        argument (str): the option that gives it, named in the refusal.
        log (Callable[[str], None]): told, in one line, when the lock of a
            run that ended without releasing it (killed) is taken over.

    Raises:
        UserError: another process holds the lock.
    """
    f, previous = _acquire(work_dir, argument)
    path = f.name
    try:
        if previous:
            log(f'{path}: took over the lock of {_described(previous)}, '
                'which ended without releasing it (killed?)')
        f.seek(0)
        f.truncate()
        json.dump(dict(pid=os.getpid(), host=socket.gethostname(),
                       command=' '.join([osp.basename(sys.argv[0])]
                                        + sys.argv[1:])[:200],
                       since=time.strftime('%Y-%m-%d %H:%M:%S UTC',
                                           time.gmtime())), f)
        f.flush()
        yield path
    finally:
        # Emptied while still held: the next run finds no holder to name,
        # where a killed run leaves its own.
        f.seek(0)
        f.truncate()
        f.flush()
        f.close()


def check_work_dir_free(work_dir, argument='--work-dir'):
    """Refuses (UserError) a work dir another run holds, without taking it
    and without making the folder (``--dry-run``)."""
    if osp.isfile(osp.join(work_dir, LOCK_NAME)):
        f, _ = _acquire(work_dir, argument)
        f.close()
