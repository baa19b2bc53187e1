"""What mmengine logged during a run, read back from its work dir."""
import glob
import json
import os.path as osp

__all__ = ['logged_scalars']


def logged_scalars(path, key='loss'):
    """Every logged training record of ``key``, in order.

    mmengine writes ``<work_dir>/<timestamp>/vis_data/scalars.json``, one
    JSON record per logged iteration.

    Args:
        path (str): one run's log dir (``runner.log_dir``, with
            ``vis_data``), or a work dir: all its runs, in order (a resumed
            run has one log dir per start).

    A start that resumes (or restarts) a run logs again the iterations
    its predecessor logged after the checkpoint it resumed from: its own
    records replace every earlier one at or after its first step of
    ``key``, so each step appears once.

    Returns:
        list[dict]: ``epoch``, ``step`` and ``value`` of each record, steps
        increasing within one start's unit.
    """
    records = []
    own = osp.join(path, 'vis_data', 'scalars.json')
    files = [own] if osp.isfile(own) else sorted(glob.glob(
        osp.join(path, '*', 'vis_data', 'scalars.json')))
    for path in files:
        start = _records_of(path, key)
        if start:
            first = start[0]['step']
            records = [r for r in records if r['step'] < first] + start
    return records


def _records_of(path, key):
    """The records of ``key`` in one start's ``scalars.json``."""
    with open(path) as f:
        entries = [json.loads(line) for line in f]
    return [dict(epoch=entry.get('epoch'), step=entry.get('step'),
                 value=entry[key]) for entry in entries if key in entry]
