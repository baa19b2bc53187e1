"""What mmengine logged during a run, read back from its work dir."""
import glob
import json
import os.path as osp

__all__ = ['logged_entries', 'logged_scalars']


def logged_entries(path, key='loss'):
    """Every logged record holding ``key``, whole, in order.

    mmengine writes ``<work_dir>/<timestamp>/vis_data/scalars.json``, one
    JSON record per logged iteration (``step``, ``loss``, ``time``,
    ``data_time``, ``memory``... as the run logs them).

    Args:
        path (str): one run's log dir (``runner.log_dir``, with
            ``vis_data``), or a work dir: all its runs, in order (a resumed
            run has one log dir per start).
        key (str): the entries kept are those that hold it.

    A start that resumes (or restarts) a run logs again the iterations
    its predecessor logged after the checkpoint it resumed from: its own
    records replace every earlier one at or after its first step of
    ``key``, so each step appears once.

    Returns:
        list[dict]: the records, steps increasing within one start's unit.
    """
    records = []
    own = osp.join(path, 'vis_data', 'scalars.json')
    files = [own] if osp.isfile(own) else sorted(glob.glob(
        osp.join(path, '*', 'vis_data', 'scalars.json')))
    for path in files:
        with open(path) as f:
            start = [entry for entry in map(json.loads, f) if key in entry]
        if start:
            first = start[0]['step']
            records = [r for r in records if r['step'] < first] + start
    return records


def logged_scalars(path, key='loss'):
    """``logged_entries`` of ``key`` reduced to ``epoch``, ``step`` and
    ``value`` (the value of ``key``)."""
    return [dict(epoch=entry.get('epoch'), step=entry.get('step'),
                 value=entry[key]) for entry in logged_entries(path, key)]
