"""A config file read as the tools read it (a missing or broken file is
one line naming the argument), the work dir a run of it gets, and
``--cfg-options`` merged into it, a new length fitting the schedule."""
import os.path as osp

from mmengine.config import Config
from mmengine.logging import print_log

from .errors import UserError
from .paths import check_config_path
from .run_tool import launched_rank

__all__ = ['LENGTH_KEYS', 'apply_cfg_options', 'default_work_dir',
           'read_config']


def read_config(path, argument='config'):
    """``Config.fromfile(path)``, a missing, mistyped or unreadable file
    refused as a UserError naming ``argument``.

    Returns:
        mmengine.Config
    """
    check_config_path(path, argument)
    try:
        return Config.fromfile(path)
    except SyntaxError as e:
        raise UserError(f'{argument}: {path} is not valid Python: {e.msg} '
                        f'(line {e.lineno})') from e
    except FileNotFoundError as e:  # a _base_ it names
        raise UserError(f'{argument}: {path} names a file that does not '
                        f'exist: {e.filename}') from e


def default_work_dir(cfg, config):
    """The work dir of a run of ``cfg`` (read from ``config``) given no
    ``--work-dir``: the config's ``work_dir``, else
    ``./work_dirs/<config name>``, as OpenMMLab's tools choose it."""
    if cfg.get('work_dir') is not None:
        return cfg.work_dir
    return osp.join('./work_dirs', osp.splitext(osp.basename(config))[0])


# A run's length on the command line: (key, counted in epochs).
LENGTH_KEYS = (('train_cfg.max_epochs', True), ('train_cfg.max_iters', False))


def apply_cfg_options(cfg, options):
    """Merges ``--cfg-options`` into ``cfg``, a new length included: a
    ``train_cfg.max_epochs`` (or ``max_iters``) other than the config's
    fits its learning-rate schedule to it as the studies do (warmup kept,
    the decay ending with the run;
    ``randsac_mm.engine.schedule_length.fit_schedulers``), unless the options
    set ``param_scheduler`` themselves; a line says so. Without this a
    cosine schedule of 10 epochs run for 40 would spend 30 at its minimum.
    """
    before = {key: cfg.get('train_cfg', {}).get(key.split('.')[1])
              for key, _ in LENGTH_KEYS}
    roots = {split: cfg.get(f'{split}_dataloader', {}).get('dataset', {})
             .get('data_root') for split in ('val', 'test')}
    cfg.merge_from_dict(options)
    for split, root in roots.items():
        _follow_data_root(cfg, options, split, root)
    if any(key.split('.')[0] == 'param_scheduler' for key in options):
        return
    from ..engine.schedule_length import fit_schedulers
    for key, by_epoch in LENGTH_KEYS:
        if key not in options or before[key] in (None, options[key]) or \
                not cfg.get('param_scheduler'):
            continue
        fit_schedulers(cfg, int(options[key]), by_epoch)
        unit = 'epochs' if by_epoch else 'iterations'
        if launched_rank() != 0:
            continue  # said once, by rank 0
        print_log(f'--cfg-options {key}={options[key]} (the config: '
                  f'{before[key]}): the learning-rate schedule fitted to '
                  f'{options[key]} {unit} (its warmup kept, its decay '
                  'ending with the run); set param_scheduler too to choose '
                  'otherwise', logger='current')


def _follow_data_root(cfg, options, split, old_root):
    """A ``<split>_dataloader.dataset.data_root`` given on the command
    line moves the split's evaluator's ``ann_file`` (COCO's ground truth,
    written in the config as ``data_root + 'annotations/...'``) with it,
    unless the options set that too: else the run would score against the
    old root's ground truth (stale files there, rc 0)."""
    key = f'{split}_dataloader.dataset.data_root'
    evaluator = cfg.get(f'{split}_evaluator')
    if key not in options or not old_root or not isinstance(
            evaluator, dict) or f'{split}_evaluator.ann_file' in options:
        return
    ann_file = evaluator.get('ann_file')
    old = osp.normpath(old_root)
    if not ann_file or not osp.normpath(ann_file).startswith(old + osp.sep):
        return
    evaluator['ann_file'] = osp.join(
        options[key], osp.relpath(osp.normpath(ann_file), old))
    print_log(f'--cfg-options {key}: {split}_evaluator.ann_file follows it '
              f"to {evaluator['ann_file']}", logger='current')
