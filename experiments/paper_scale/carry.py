"""A paper-scale run's records between the machine that runs it (the
work dir) and the committed records (``--records``), and what a work dir
records of a run."""
import dataclasses
import glob
import os
import os.path as osp
import shutil

from randsac_mm.cli.errors import UserError

from .. import small_scale as small
from ..records import load_record, read_record, step_minutes
from .plan import PAPER_SCALE, RUN_FILES


def _records_dir(records, name, seed):
    return osp.join(records, 'runs', f'{name}_seed{seed}')


def _run_files(folder):
    return [p for pattern in RUN_FILES
            for p in sorted(glob.glob(osp.join(folder, pattern)))]


def restore(name, seed, settings, records):
    """Copies a run's committed records, all of them, into the work dir
    (where the study finds them) when the work dir has none of its own (a
    run of this machine, finished or under way, is left as it is)."""
    source = _records_dir(records, name, seed)
    target = small.run_dir(name, seed, settings)
    if not _run_files(source) or _run_files(target):
        return
    os.makedirs(target, exist_ok=True)
    for path in _run_files(source):
        shutil.copy2(path, target)


def keep(name, seed, settings, records):
    """Copies a finished run's records (not its checkpoints) to
    ``records``; refuses to replace records of other settings there
    (UserError naming ``--records``)."""
    source = small.run_dir(name, seed, settings)
    target = _records_dir(records, name, seed)
    ran = load_record(osp.join(source, 'pretrain.json'))
    if ran is not None:  # a run without pretraining has no such record
        read_record(osp.join(target, 'pretrain.json'), ran['settings'],
                    '--records')  # refuses records of other settings
    os.makedirs(target, exist_ok=True)
    for path in _run_files(source):
        shutil.copy2(path, target)


def is_done(name, seed, settings):
    """Whether every readout of the run is recorded in the work dir for
    these settings (a run of other settings is not done: running it says
    so)."""
    report = dataclasses.replace(settings, report_only=True)
    try:
        return bool(small.run_one(name, seed, report, loaders=None))
    except UserError:  # the work dir holds a run of other settings
        return False


def recorded_minutes(name, seed, settings):
    """(pretraining, readout) minutes the work dir records for a run of
    these settings; None for what it does not record (the pretraining of
    a run resumed before the training clock: its record times the last
    start only)."""
    folder = small.run_dir(name, seed, settings)
    pretrain = readouts = None
    done = load_record(osp.join(folder, 'pretrain.json'))
    if done is not None and (done.get('train_minutes') is not None
                             or not done.get('resumed_from')):
        pretrain = step_minutes(done)
    evals = [small.recorded_readouts(name, seed, epoch, settings,
                                     small.checkpoint_name(epoch))[0]
             for epoch in settings.eval_epochs]
    if PAPER_SCALE.variants[name][0] is None:
        pretrain = 0.0
        evals = [small.recorded_readouts(name, seed, 0, settings)[0]]
    if all('eval_minutes' in e for e in evals):
        readouts = sum(e['eval_minutes'] for e in evals)
    return pretrain, readouts


