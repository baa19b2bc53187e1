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

    Returns:
        list[dict]: ``epoch``, ``step`` and ``value`` of each record.
    """
    records = []
    own = osp.join(path, 'vis_data', 'scalars.json')
    files = [own] if osp.isfile(own) else sorted(glob.glob(
        osp.join(path, '*', 'vis_data', 'scalars.json')))
    for path in files:
        with open(path) as f:
            for line in f:
                entry = json.loads(line)
                if key in entry:
                    records.append(dict(epoch=entry.get('epoch'),
                                        step=entry.get('step'),
                                        value=entry[key]))
    return records
