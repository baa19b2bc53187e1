"""The small dense transfer study's steps, each reused from its record
(the same settings) or resumed from its last checkpoint: the pretrainings,
the frozen readouts, the downstream runs, and the table of their metrics.
"""
import json
import os
import os.path as osp
import statistics
from dataclasses import asdict

from randsac_mm.cli.errors import UserError
from randsac_mm.engine.schedule_length import set_epochs

from ..cells import cell
from ..digit_scenes import make_scenes
from ..records import (
    load_record,
    loss_difference,
    recorded_step,
    step_minutes,
    train_resuming,
)
from ..scalars import logged_scalars
from ..training_clock import trained_minutes
from .pictures import draw_predictions
from .readout import KINDS, TEST_IMAGES, token_identity
from .runs import (
    INITS,
    PRETRAININGS,
    TASKS,
    checkpoint_each_quarter,
    run_config,
    run_length,
)


def check_digits(dataset, digits):
    """``digits``, the first N images of the pretraining's training split
    (mmengine's ``indices``), refused if the split (config ``dataset``)
    has fewer: ``indices`` would silently take the whole split."""
    from mmengine.registry import DefaultScope
    from mmpretrain.registry import DATASETS

    import randsac_mm.registration  # noqa: F401  (registers)

    # In mmpretrain's scope whatever ran before: a downstream run leaves
    # mmseg's or mmdet's current, where the digits' data set is unknown.
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        size = len(DATASETS.build(dict(dataset, indices=None, pipeline=[])))
    if digits > size:
        raise UserError(f'pretrain_digits: {digits} is more than the '
                        f'{size} images of {dataset.type}\'s training split')
    return digits


def pretrain(name, settings, log=print):
    """Pretrains ``name`` (of ``PRETRAININGS``) once, with seed 0: a
    recorded step (``records.recorded_step``: reused, resumed, or, when
    its checkpoint is gone, made again and compared by its logged losses);
    returns its final checkpoint's path and its minutes of training over
    every start (``records.step_minutes``; both None in a report before
    it ran; 0 when it is another study's, ``settings.pretrained_from``).
    """
    wanted = settings.recorded(dict(
        pretraining=name, config=PRETRAININGS[name], seed=0,
        epochs=settings.pretrain_epochs, digits=settings.pretrain_digits),
        with_options=False)
    # Where a study keeps a pretraining: this one's, or the study's it
    # reuses.
    work_dir, records = settings.pretrained_from or (settings.work_dir,
                                                     settings.records)
    folder = osp.join(work_dir, 'pretrain', name)
    checkpoint = osp.join(folder, f'epoch_{settings.pretrain_epochs}.pth')
    path = osp.join(records, f'pretrain_{name}.json')
    if settings.pretrained_from:
        return reused_pretraining(name, wanted, path, checkpoint, settings,
                                  log)

    def make():
        log(f'[pretrain] {name}: {settings.pretrain_epochs} epochs on '
            f'{settings.pretrain_digits} digits')
        runner, resumed = train_resuming(pretrain_config(name, settings),
                                         folder, wanted)
        return dict(
            losses=[[r['step'], r['value']] for r in logged_scalars(folder)],
            resumed_from=resumed and osp.basename(resumed),
            train_minutes=trained_minutes(runner))
    made_here = load_record(path) is None or not osp.isfile(checkpoint)
    record = recorded_step(
        path, wanted, '--records', make, settings.report_only,
        checkpoints=[checkpoint], difference=_loss_difference,
        log=lambda line: log(f'[pretrain] {name}: {line}'))
    if record is None:
        return None, None
    if not made_here or settings.report_only:
        log(f'[pretrain] {name}: recorded in {path}')
    return checkpoint, step_minutes(record)


def _loss_difference(recorded, made):
    """``records.loss_difference`` of a pretraining's logged losses
    ([step, value] lists)."""
    return loss_difference(dict(recorded['losses']), dict(made['losses']))


def pretrain_config(name, settings):
    """The config of pretraining ``name``: its recipe for the study's
    epochs on its first ``pretrain_digits`` digits, seed 0."""
    from mmengine.config import Config
    cfg = Config.fromfile(PRETRAININGS[name])
    set_epochs(cfg, settings.pretrain_epochs)
    checkpoint_each_quarter(cfg, settings.pretrain_epochs)
    cfg.randomness = dict(seed=0)
    cfg.experiment_name = f'pretrain_{name}'
    cfg.train_dataloader.dataset.indices = check_digits(
        cfg.train_dataloader.dataset, settings.pretrain_digits)
    return cfg


def reused_pretraining(name, wanted, path, checkpoint, settings, log=print):
    """Another study's pretraining ``name`` (``settings.pretrained_from``),
    whose record at ``path`` must have the ``wanted`` settings and, unless
    only reporting, its ``checkpoint`` exist: (checkpoint, 0.0 minutes:
    nothing trained here).

    Raises:
        UserError: that study has no such record, or not its checkpoint.
    """
    work_dir, records = settings.pretrained_from
    found = (load_record(path) or {}).get('settings')
    if found != wanted:
        held = 'no record' if found is None else f'the record of {found}'
        raise UserError(
            f'--pretrained-from: {path}: {held}, not of the pretraining '
            f'this study needs ({wanted}); give the work dir and records of '
            'a study that pretrained with these settings')
    if not (settings.report_only or osp.isfile(checkpoint)):
        raise UserError(f'--pretrained-from: {checkpoint} does not exist; '
                        'give the work dir of the study whose records are '
                        f'{records}')
    log(f'[pretrain] {name}: reused from {work_dir}')
    return checkpoint, 0.0


def downstream_encoder(checkpoint, img_size):
    """The encoder of a pretraining checkpoint as the downstream configs
    load it, by the converter users run (randsac2downstream.py): the same
    step for every pretraining, and the one that takes MAE's (its class
    token dropped). Written beside the checkpoint with the checkpoint's
    modification time, and made again when the checkpoint's differs (a
    pretraining made again; an equality, so another machine's clock in the
    times does not matter); returns its path."""
    from randsac_mm.checkpoint import (
        convert_for_downstream,
        read_checkpoint,
        save_atomic,
    )
    out = checkpoint[:-len('.pth')] + f'_encoder-{img_size}px.pth'
    made = os.stat(checkpoint).st_mtime_ns
    if osp.isfile(out) and os.stat(out).st_mtime_ns == made:
        return out
    _, state = read_checkpoint(checkpoint, checkpoint, UserError)
    depth = 1 + max(int(k.split('.')[2]) for k in state
                    if k.startswith('backbone.layers.'))
    encoder, _ = convert_for_downstream(state, img_size, num_layers=depth)
    save_atomic(dict(state_dict=encoder, meta=dict(converted_from=checkpoint)),
                out)
    os.utime(out, ns=(made, made))
    return out


def readout(name, checkpoint, settings, log=print):
    """The frozen encoder's token identity (``readout.py``)
    of pretraining ``name`` (None: random init), or its record."""
    wanted = dict(
        encoder=name or 'random', pretraining=name and dict(
            epochs=settings.pretrain_epochs, digits=settings.pretrain_digits),
        kinds=list(KINDS),
        train_digits=settings.readout_digits,
        train_scenes=min(settings.readout_scenes, settings.train_scenes),
        test=TEST_IMAGES, scenes=[settings.train_scenes, settings.val_scenes])
    path = osp.join(settings.records,
                    f"readout_{name or 'random'}.json")
    wanted = settings.recorded(wanted)
    if load_record(path) is not None:
        log(f"[readout] {name or 'random'}: recorded in {path}")

    def make():
        log(f"[readout] {name or 'random'}: token identity, frozen")
        return dict(accuracy=token_identity(
            checkpoint and downstream_encoder(checkpoint,
                                              settings.scene_size),
            settings))
    # A pretraining a report did not make has no checkpoint to read out.
    unmade = name is not None and checkpoint is None
    return recorded_step(path, wanted, '--records', make,
                         settings.report_only or unmade)


def check_cfg_options(settings):
    """Builds each task's model and optimizer with ``settings.cfg_options``
    merged, as its runs will: a key no class takes is refused, one line
    naming it and the class, before anything is made."""
    from randsac_mm.run.builds import (
        check_model_builds,
        check_optimizer_builds,
    )
    for task in settings.tasks:
        cfg = run_config(task, 'random', settings.seeds[0], None, settings)
        check_optimizer_builds(cfg, check_model_builds(cfg))


def run_one(task, init, seed, checkpoints, settings, log=print):
    """Trains and evaluates one run, or reuses its record.

    Returns:
        dict | None: the record (``settings``, ``metrics``, ``losses``,
        ``resumed_from``, ``minutes`` of the start that finished it,
        ``train_minutes`` of its training over every start); None in a
        report of a run not yet recorded.
    """
    pretraining, frozen = INITS[init]
    wanted = dict(
        task=task, init=init, seed=seed, config=TASKS[task]['config'],
        pretraining=pretraining and dict(
            name=pretraining, epochs=settings.pretrain_epochs,
            digits=settings.pretrain_digits),
        frozen=frozen, train_scenes=settings.train_scenes,
        val_scenes=settings.val_scenes,
        length=run_length(task, settings))
    name = f'{task}_{init}_seed{seed}'
    path = osp.join(settings.records, f'{name}.json')
    wanted = settings.recorded(wanted)
    if load_record(path) is not None:
        log(f'[{task}] {init} seed {seed}: recorded in {path}')

    def make():
        cfg = run_config(task, init, seed, pretraining and downstream_encoder(
            checkpoints[pretraining], settings.scene_size), settings)
        folder = osp.join(settings.work_dir, 'runs', name)
        runner, resumed = train_resuming(cfg, folder, wanted)
        logged = TASKS[task]['metrics']
        final = logged_scalars(folder, key=next(iter(logged.values())))
        if not final:
            raise RuntimeError(f'{folder}: the run logged no '
                               f'{next(iter(logged.values()))}')
        step = final[-1]['step']
        return dict(metrics={metric: value_at(folder, key, step)
                             for metric, key in logged.items()},
                    losses=[(r['step'], r['value'])
                            for r in logged_scalars(folder)],
                    resumed_from=resumed and osp.basename(resumed),
                    train_minutes=trained_minutes(runner))
    return recorded_step(path, wanted, '--records', make,
                         settings.report_only)


def value_at(folder, key, step):
    """The value of ``key`` logged at ``step`` (mmdet logs COCO AP as a
    fraction: scaled to percent like mmseg's mIoU)."""
    for entry in logged_scalars(folder, key=key):
        if entry['step'] == step:
            return entry['value'] * 100 if key.startswith('coco/') \
                else entry['value']
    raise RuntimeError(f'{folder}: no {key} logged at step {step}')


def table_rows(records):
    """The study's table: one row per (task, init, seed, metric)."""
    rows = []
    for record in records:
        s = record['settings']
        for metric, value in record['metrics'].items():
            rows.append(dict(task=s['task'], init=s['init'], seed=s['seed'],
                             metric=metric, value=round(value, 2)))
    return rows


def by_seed(rows, task, metric, init):
    """{seed: value} of one initialisation's rows."""
    return {r['seed']: r['value'] for r in rows if r['task'] == task
            and r['metric'] == metric and r['init'] == init}


def summary(rows, settings):
    """Mean, spread (sample standard deviation; None with one seed) and the
    gain over random init of each (task, metric, init), over the seeds run;
    the gain over the seeds both have, paired by seed.
    """
    out = []
    for task in settings.tasks:
        for metric in TASKS[task]['metrics']:
            values = {init: by_seed(rows, task, metric, init)
                      for init in settings.inits
                      if init in TASKS[task]['inits']}
            random = values.get('random', {})
            for init, mine in values.items():
                if not mine:
                    continue
                vals = list(mine.values())
                entry = dict(task=task, metric=metric, init=init,
                             seeds=len(vals), mean=statistics.mean(vals),
                             std=statistics.stdev(vals) if len(vals) > 1
                             else None)
                paired = sorted(mine.keys() & random.keys())
                if paired and init != 'random':
                    entry['gain_over_random'] = statistics.mean(
                        mine[s] - random[s] for s in paired)
                out.append(entry)
    return out


def markdown(entries):
    lines = ['| task | metric | initialisation | seeds | mean | std | gain '
             'over random init |', '| --- | --- | --- | --- | --- | --- | '
             '--- |']
    for e in entries:
        gain = e.get('gain_over_random')
        lines.append(f"| {e['task']} | {e['metric']} | {e['init']} | "
                     f"{e['seeds']} | {e['mean']:.2f} | "
                     f"{cell(e['std'], '.2f')} | "
                     f"{'' if gain is None else f'{gain:+.2f}'} |")
    return '\n'.join(lines)


def run_study(settings, log=print):
    """Runs (or reuses) every pretraining and run of ``settings``; writes
    the table and the pictures. Returns the table's JSON."""
    from randsac_mm.checkpoint import write_json
    if not settings.report_only:
        ensure_scenes(settings, log)
    needed = {INITS[i][0] for i in settings.inits} - {None}
    pretrained = {name: pretrain(name, settings, log)
                  for name in PRETRAININGS if name in needed}
    checkpoints = {name: path for name, (path, _) in pretrained.items()}
    minutes = dict(pretraining=sum(m or 0 for _, m in pretrained.values()),
                   readout=0.0, downstream=0.0)
    readouts = {}
    for name in [None] + list(checkpoints):
        record = readout(name, checkpoints.get(name), settings, log)
        if record is not None:
            readouts[name or 'random'] = record['accuracy']
            minutes['readout'] += record['minutes']
    records = []
    for task in () if settings.readout_only else settings.tasks:
        runs = settings.runs_of(task)
        for done, (init, seed) in enumerate(runs, start=1):
            record = run_one(task, init, seed, checkpoints, settings, log)
            if record is None:
                log(f'[{task} {done}/{len(runs)}] {init} seed {seed}: not '
                    'recorded yet')
                continue
            records.append(record)
            shown = ', '.join(f'{k} {v:.2f}'
                              for k, v in record['metrics'].items())
            log(f'[{task} {done}/{len(runs)}] {init} seed {seed}: {shown} '
                f"({step_minutes(record):.1f} min)")
    rows = table_rows(records)
    minutes['downstream'] = sum(step_minutes(r) for r in records)
    result = dict(settings=table_settings(settings, rows), rows=rows,
                  summary=summary(rows, settings), token_identity=readouts,
                  minutes=minutes)
    write_json(settings.records.rstrip('/') + '.json', result)  # the table
    if not settings.readout_only:  # a report too: from the runs here
        for task in settings.tasks:
            draw_predictions(task, settings, log)
    return result


def table_settings(settings, rows=()):
    """The settings a study's table names: what its runs hold, not how it
    ran (reporting, reading out, quick); the seeds its ``rows`` hold where
    it has rows (a report asked for seeds 0-4 of a study recorded at 0-2
    names 0-2); another study's pretrainings only when used, so that a
    report of a study that used none writes the same table again; the
    pretraining's length and digits only where an initialisation is
    pretrained (random init's table holds no length)."""
    pretrained = any(INITS[i][0] for i in settings.inits)
    table = {k: v for k, v in asdict(settings).items()
             if k not in ('report_only', 'readout_only', 'quick')
             and not (k == 'pretrained_from' and v is None)
             and (pretrained or k not in ('pretrain_epochs',
                                          'pretrain_digits'))}
    if rows:
        table['seeds'] = sorted({r['seed'] for r in rows})
    return table


def ensure_scenes(settings, log=print):
    """Makes the study's scenes, or reuses them when their statistics say
    they were made with the same counts and seed.

    Raises:
        UserError: the work dir holds scenes of other counts or seed: the
            runs there were trained on them, so they are not replaced.
    """
    stats_path = osp.join(settings.scenes, 'statistics.json')
    if osp.isfile(stats_path):
        with open(stats_path) as f:
            stats = json.load(f)
        found = (stats['seed'], stats['training']['scenes'],
                 stats['validation']['scenes'])
        wanted = (settings.scenes_seed, settings.train_scenes,
                  settings.val_scenes)
        if found == wanted:
            return
        raise UserError(
            f'--work-dir: {settings.scenes} holds {found[1]} training and '
            f'{found[2]} validation scenes of seed {found[0]}, this study '
            f'asks for {wanted[1]} and {wanted[2]} of seed {wanted[0]}; the '
            'runs there were trained on them: give another --work-dir, or '
            'remove that folder to make new scenes')
    log(f'[scenes] {settings.train_scenes} training and '
        f'{settings.val_scenes} validation scenes in {settings.scenes}')
    make_scenes(settings.scenes, settings.train_scenes, settings.val_scenes,
                size=settings.scene_size, seed=settings.scenes_seed,
                log=lambda line: None)
