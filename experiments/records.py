"""The studies' records: what the small-scale, the paper-scale and the
dense transfer study share to run a plan in several sittings.

A record is one JSON file per step of a run (a pretraining, the readouts
at one epoch, a transfer run) whose ``settings`` say everything the step's
result depends on. Every study's step is :func:`recorded_step`: it asks
for a record with the settings it needs, and

- none yet: the step runs (resuming from its folder's latest checkpoint
  when an earlier start left one: :func:`train_resuming`) and its record
  is written whole or not at all (:func:`write_record`), stamped with the
  machine and the commit it ran on (:func:`run_stamp`);
- one of those settings: reused, nothing runs;
- one of other settings: refused (:func:`read_record`), never written
  over, since a table would mix runs of two settings;
- one of those settings whose checkpoints a later step needs, and which
  are gone (a new clone has the records, not the checkpoints): the step
  is made again, and the two compared by what they logged; the same, the
  record stands; not the same, the new record replaces it and keeps it
  (``replaced``), and the log says so (:func:`recorded_step`'s
  ``checkpoints``).

How a step ran is part of its settings in one way for every study
(:func:`settings_stamp`: the device, the CPU's precision, compilation).
Each study says which settings identify its steps and where its records
live; the rules above are stated here once.
"""
import json
import os.path as osp
import time

from randsac_mm.cli.errors import UserError

from .benchmark_io import code_commit, cpu_precision_setting, machine_info
from .scalars import logged_entries
from .training_clock import TrainingClock

__all__ = ['load_record', 'loss_difference', 'read_record', 'recorded_step',
           'run_stamp', 'same_settings', 'settings_stamp', 'step_minutes',
           'train_resuming', 'write_record']


def settings_stamp(device='cpu', compile=False):
    """What a step's settings say of how it ran, each only where it is not
    the default, so that the records made before it was said still match:
    the device (none for 'cpu'), the CPU's precision (none in float32:
    ``benchmark_io.cpu_precision_setting``), ``compile`` (only True)."""
    stamp = {}
    if device != 'cpu':  # bf16 on a GPU
        stamp['device'] = device
    else:  # bf16 on a CPU with bf16 instructions, else float32 (nothing)
        stamp.update(cpu_precision_setting())
    if compile:
        stamp['compile'] = True
    return stamp


def run_stamp():
    """What a new record says of where it was made (not a setting: records
    of two machines are runs of the same settings): the machine and the
    commit."""
    return dict(machine=machine_info(), commit=code_commit())


def recorded_step(path, wanted, argument, make, report_only=False,
                  checkpoints=(), difference=None, log=print):
    """The one step of every study: the record at ``path`` if it was made
    with the ``wanted`` settings, else ``make()`` run and recorded.

    Args:
        path (str): the step's record.
        wanted (dict): its settings.
        argument (str): the option that says where the records live,
            named when a record of other settings is refused.
        make (Callable[[], dict]): runs the step (resuming what an earlier
            start left) and returns its result, without its settings.
        report_only (bool): run nothing: the record, or None.
        checkpoints (Sequence[str]): files the step leaves that a later
            step needs; a record whose files are gone is made again.
        difference (Callable[[dict, dict], str | None]): how a step made
            again (the new record) differs from its record, in words (e.g.
            its logged losses), None when it is the same; needed with
            ``checkpoints``.
        log (Callable[[str], None]): told when a step is made again.

    Returns:
        dict | None: the record (``settings``, the result, ``minutes``,
        the :func:`run_stamp`); None only in a report of a step not made.

    Raises:
        UserError: the record holds other settings.
    """
    record = read_record(path, wanted, argument)
    gone = [c for c in checkpoints if not osp.exists(c)]
    if report_only or (record is not None and not gone):
        return record
    if record is not None:
        names = ', '.join(osp.basename(c) for c in gone)
        log(f'{path}: its checkpoints are gone ({names}): made again')
    start = time.time()
    made = dict(settings=wanted, **make(),
                minutes=(time.time() - start) / 60, **run_stamp())
    if record is not None:
        differs = difference(record, made)
        if differs is None:
            log(f'{path}: made again, the same as its record: the record '
                'kept')
            return record
        log(f'{path}: made again, not the same as its record ({differs}): '
            'the records made from the old one came from another run of '
            'the same settings; the new record keeps it as "replaced"')
        made['replaced'] = record
    write_record(path, made)
    return made


def step_minutes(record):
    """A recorded step's minutes: its ``train_minutes`` where its make kept
    them (the training over every start: ``experiments.training_clock``),
    else its ``minutes``, those of the start that finished it, which
    undercount a resumed step (records made before the clock, and steps
    that train nothing)."""
    clocked = record.get('train_minutes')
    return record['minutes'] if clocked is None else clocked


def loss_difference(old, new):
    """How a step made again differs from its record by its logged losses
    (``recorded_step``'s ``difference``), in words; None when the same.

    Args:
        old, new (dict): {step: loss} of the record and of the step made
            again (a step: an epoch or an iteration).
    """
    if old == new:
        return None
    if old.keys() != new.keys():
        return f'{len(old)} and {len(new)} losses logged, at other steps'
    largest = max(abs(old[step] - new[step]) for step in old)
    return f'logged losses apart by up to {largest:.4g}'


def load_record(path):
    """The record at ``path`` as it is, or None when there is none."""
    if not osp.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def same_settings(path, wanted):
    """The record at ``path`` if it was made with the ``wanted`` settings;
    None otherwise (none, or of other settings): for a report that only
    reads."""
    record = load_record(path)
    return record if record and record['settings'] == wanted else None


def read_record(path, wanted, argument):
    """The record at ``path`` if it was made with the ``wanted`` settings;
    None if there is none.

    Args:
        path (str): the record's file.
        wanted (dict): the settings the study needs.
        argument (str): the option that says where the study's records
            live ('--work-dir', '--records'), named in the refusal.

    Raises:
        UserError: the file records other settings: naming each that
            differs (the record's value, then this run's), and, for a CPU's
            precision, how to run in the record's.
    """
    record = load_record(path)
    if record is not None and record['settings'] != wanted:
        raise UserError(
            f'{argument}: {path} records other settings '
            f"({_settings_difference(record['settings'], wanted)}): give "
            f'another {argument} (that file is kept)'
            f"{_precision_hint(record['settings'], wanted)}")
    return record


def _settings_difference(recorded, wanted):
    """'key: recorded's value, here wanted's; ...' for each key whose
    values differ (None where a side lacks the key)."""
    keys = sorted(set(recorded) | set(wanted))
    return '; '.join(f'{key}: {recorded.get(key)!r} there, '
                     f'{wanted.get(key)!r} here' for key in keys
                     if recorded.get(key) != wanted.get(key))


def _precision_hint(recorded, wanted):
    """How to run in the record's precision, when only that differs (see
    ``benchmark_io.cpu_precision_setting``: float32 records name none)."""
    from randsac_mm.precision import CPU_PRECISION_ENV
    rest = {k: v for k, v in recorded.items() if k != 'precision'}
    if rest != {k: v for k, v in wanted.items() if k != 'precision'}:
        return ''
    return (f', or run in its precision: {CPU_PRECISION_ENV}='
            f"{recorded.get('precision', 'float32')}")


def write_record(path, record):
    """Writes ``record`` (with its ``settings``) to ``path`` whole or not at
    all (an interrupted write leaves the previous file), folders made."""
    from randsac_mm.checkpoint import write_json
    if 'settings' not in record:
        raise ValueError(f'a record names its settings; {path} has none')
    write_json(path, record)


def train_resuming(cfg, folder, settings=None, adopt_unnamed=False):
    """Trains ``cfg`` in ``folder`` as tools/train.py does (the preflight,
    then the runner), continuing from the folder's latest checkpoint if an
    earlier start left one.

    Args:
        settings (dict | None): the step's record settings: the folder
            keeps them (``settings.json``) from its first start, and a
            folder of another run is refused instead of continued
            (:func:`_claim_folder`). None: any folder is continued.
        adopt_unnamed (bool): a folder without ``settings.json`` is taken
            as this run's: a study whose folders were made before they
            kept their settings (its record beside its checkpoints).

    Returns:
        tuple: the runner, and the checkpoint resumed from (None: a fresh
        start). The runner's training time over every start of the run:
        ``training_clock.trained_minutes(runner)``.

    Raises:
        UserError: ``folder`` is another run's, or another process trains
            in it now (``randsac_mm.run.work_dir_lock``: a study started
            twice).
    """
    from randsac_mm.checkpoint import latest_checkpoint
    from randsac_mm.run.preflight import preflight
    from randsac_mm.run.runner import build_runner
    from randsac_mm.run.work_dir_lock import hold_work_dir
    with hold_work_dir(folder):
        resumed = latest_checkpoint(folder)
        if settings is not None:
            _claim_folder(folder, settings, resumed, adopt_unnamed)
        cfg.work_dir = folder
        if cfg.get('visualizer') and cfg.get('experiment_name'):
            # mmseg's and mmdet's runtimes name their visualizer
            # 'visualizer', and mmengine hands a second run in this process
            # the first's instance (and log folder): each run's own.
            cfg.visualizer.name = cfg.experiment_name
        if resumed is not None:  # an interrupted run continues exactly
            cfg.resume, cfg.load_from = True, resumed
        runner = build_runner(cfg, preflight(cfg, 'train'))
        runner.register_hook(TrainingClock())
        runner.train()
    return runner, resumed


def _claim_folder(folder, settings, checkpoint, adopt_unnamed=False):
    """Keeps ``settings`` in ``folder`` (``settings.json``), or refuses a
    folder of another run: one that holds a ``checkpoint`` (None: none)
    or logged losses under other settings, or under none named unless
    ``adopt_unnamed`` (its checkpoint would be continued, its losses read
    back as this run's). A folder that holds neither is claimed anew."""
    path = osp.join(folder, 'settings.json')
    held = (load_record(path) or {}).get('settings')
    if held == settings:
        return
    if checkpoint is not None:
        left = 'the checkpoint ' + osp.basename(checkpoint)
    else:
        left = 'the logged losses' if logged_entries(folder) else None
    if left is None or (held is None and adopt_unnamed):
        write_record(path, dict(settings=settings))
        return
    what = ('names no settings' if held is None else
            _settings_difference(held, settings))
    raise UserError(
        f'--work-dir: {folder} holds {left} of another run ({what}): give '
        'another --work-dir, or remove that folder'
        f'{_precision_hint(held or {}, settings)}')
