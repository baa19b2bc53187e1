"""The small dense transfer study: UperNet and Mask R-CNN on the digit
scenes from each initialisation of the same ViT-mini/4 encoder, on a CPU.
From the repository root:

    python -m experiments.transfer_small               # the whole study
    python -m experiments.transfer_small --tasks segmentation --seeds 0
    python -m experiments.transfer_small --report-only  # the table so far
    python -m experiments.transfer_small --quick        # the test's run

Initialisations (``INITS``): the demo's RandSAC (square 16 -> 4), RandSAC
patch-random and MAE with the matched decoder, each pretrained here on the
demo's 4,000 MNIST5k digits for the same epochs (``PRETRAININGS``, seed 0);
the encoder's own random init; and, for segmentation, the RandSAC encoder
frozen (the pyramid and heads learn). Every run uses the task's config under
``configs/segmentation/`` or ``configs/detection/`` unchanged but for its
length, its data and its initialisation, and trains and evaluates through
mmseg's or mmdet's own Runner loops.

The study makes its scenes (``experiments.digit_scenes``) in
``<work_dir>/digit_scenes``, pretrains in ``<work_dir>/pretrain/<name>`` and
trains in ``<work_dir>/runs/<task>_<init>_seed<seed>``. Each finished
pretraining and run writes a record (settings, logged losses, metrics,
minutes; no checkpoint) to ``--records``; a record with the same settings
is reused, an interrupted run resumes from its last checkpoint, so the
study may stop and continue across sessions. The table (rows of ``task,
init, seed, metric, value``) goes to ``<records>.json`` and one picture per
task (validation scenes, ground truth and each initialisation's prediction
at the first seed, from the runs whose checkpoints are here, a report's
too) beside it.
"""
import copy
import functools
import json
import os
import os.path as osp
import statistics
import time
from dataclasses import asdict, dataclass, field

from randsac_mm._cli.args import positive_int
from randsac_mm._cli.config import (
    add_cfg_options,
    set_epochs,
    set_iterations,
)
from randsac_mm._cli.device import use_device
from randsac_mm._cli.errors import UserError, add_debug_arg, run_tool
from randsac_mm._cli.parser import ToolParser
from randsac_mm._cli.paths import OUTPUT_FOLDER, write_json

from .benchmark_io import cpu_precision_setting
from .cells import cell
from .digit_scenes import make_scenes
from .scalars import logged_scalars

PROG = 'python -m experiments.transfer_small'

# The pretrainings compared, each on the demo's digits with its recipe.
PRETRAININGS = {
    'randsac-square': 'configs/demo/randsac_vit-mini-p4_square-16to4_mnist.py',
    'randsac-patch-random':
    'configs/demo/randsac_vit-mini-p4_patch-random_mnist.py',
    'mae': 'configs/demo/mae_vit-mini-p4_mnist.py',
}
# Initialisation -> (its pretraining or None: the encoder's own init,
# whether the encoder is frozen).
INITS = {
    'randsac-square': ('randsac-square', False),
    'randsac-patch-random': ('randsac-patch-random', False),
    'mae': ('mae', False),
    'random': (None, False),
    'randsac-square-frozen': ('randsac-square', True),
}
# Task -> its config, the metrics its evaluator logs (table name: logged
# key) and the initialisations run on it.
TASKS = {
    'segmentation': dict(
        config='configs/segmentation/'
        'upernet_randsac-vit-mini-p4_1xb8-4k_digit-scenes-64x64.py',
        metrics={'mIoU': 'mIoU'},
        inits=tuple(INITS)),
    'detection': dict(
        config='configs/detection/'
        'mask-rcnn_randsac-vit-mini-p4_fpn_1xb8-6e_digit-scenes-64x64.py',
        metrics={'bbox_mAP': 'coco/bbox_mAP', 'segm_mAP': 'coco/segm_mAP'},
        inits=('randsac-square', 'randsac-patch-random', 'mae', 'random')),
}
QUICK = dict(tasks=('segmentation', 'detection'), seeds=(0, ),
             inits=('randsac-square', 'random'), train_scenes=16,
             val_scenes=8, pretrain_epochs=1, pretrain_digits=64,
             segmentation_iters=4, detection_epochs=1, readout_digits=100,
             readout_scenes=16)


@dataclass
class TransferSettings:
    """One study's settings; a run is reused only under the same ones."""
    work_dir: str = 'work_dirs/transfer_small'
    records: str = 'docs/benchmarks/transfer_small'
    tasks: tuple = tuple(TASKS)
    inits: tuple = tuple(INITS)
    seeds: tuple = (0, 1)
    train_scenes: int = 2000
    val_scenes: int = 500
    pretrain_epochs: int = 10      # the demo's
    pretrain_digits: int = 4000    # all of the demo's training digits
    segmentation_iters: int | None = None  # None: the config's
    detection_epochs: int | None = None    # None: the config's
    readout_digits: int = 1000
    readout_scenes: int = 300
    # KEY=VALUE merged into every downstream config (a check of a recipe);
    # recorded in each run's and readout's settings when given.
    cfg_options: dict | None = None
    # (work dir, records) of another study whose pretrainings, of the same
    # settings, this one uses instead of pretraining (a check of the
    # downstream recipe); None: its own.
    pretrained_from: tuple | None = None
    readout_only: bool = False
    report_only: bool = False
    quick: bool = False
    scenes_seed: int = field(default=0, repr=False)

    def __post_init__(self):
        for name, allowed in (('tasks', TASKS), ('inits', INITS)):
            unknown = sorted(set(getattr(self, name)) - set(allowed))
            if unknown:
                raise UserError(f'--{name}: {", ".join(unknown)} unknown; '
                                f'choose from {", ".join(allowed)}')
        self.tasks, self.inits = tuple(self.tasks), tuple(self.inits)
        self.seeds = tuple(self.seeds)
        if self.pretrained_from is not None:
            self.pretrained_from = tuple(self.pretrained_from)
        if self.cfg_options:  # as a record holds them (JSON: no tuples)
            self.cfg_options = json.loads(json.dumps(self.cfg_options))

    def recorded(self, wanted):
        """A record's ``wanted`` settings, with the config options when
        given (records of the configs as written do not name them) and the
        CPU's precision when not float32 (``cpu_precision_setting``)."""
        if self.cfg_options:
            wanted = dict(wanted, cfg_options=self.cfg_options)
        return dict(wanted, **cpu_precision_setting())

    @property
    def scenes(self):
        return osp.join(self.work_dir, 'digit_scenes')

    @property
    def scene_size(self):
        """Side of the scenes: the configs' input side."""
        return segmentation_crop()

    def runs_of(self, task):
        """(init, seed) of every run of ``task``, seed-major: a study
        stopped early has every initialisation at some seeds."""
        return [(init, seed) for seed in self.seeds for init in self.inits
                if init in TASKS[task]['inits']]


@functools.cache
def task_config(task):
    """The task's config as written (read once; deep-copy it to change)."""
    from mmengine.config import Config
    return Config.fromfile(TASKS[task]['config'])


def segmentation_crop():
    return task_config('segmentation').crop_size[0]


def run_length(task, settings):
    """A run's length: ``dict(iters=...)`` (segmentation) or
    ``dict(epochs=...)`` (detection), the settings' or else the config's."""
    train_cfg = task_config(task).train_cfg
    if task == 'segmentation':
        return dict(iters=settings.segmentation_iters or train_cfg.max_iters)
    return dict(epochs=settings.detection_epochs or train_cfg.max_epochs)


def read_record(path, wanted):
    """The record at ``path`` if it was made with ``wanted`` settings;
    None if there is none. A record of other settings stops the study: its
    run would be mixed with others in one table."""
    if not osp.isfile(path):
        return None
    with open(path) as f:
        record = json.load(f)
    if record['settings'] != wanted:
        raise UserError(
            f'{path} records other settings ({record["settings"]}; asked '
            f'{wanted}): give other --records or remove it')
    return record


def train_resuming(cfg, folder):
    """Trains ``cfg`` in ``folder`` with mmengine's Runner, continuing from
    the folder's latest checkpoint if an earlier start left one.

    Returns:
        tuple: the runner, and the checkpoint resumed from (None: a fresh
        start).
    """
    from mmengine.runner import Runner

    from randsac_mm.checkpoint import latest_checkpoint
    cfg.work_dir = folder
    # mmseg's and mmdet's runtimes name their visualizer 'visualizer', and
    # mmengine hands a second run in this process the first's instance
    # (and log folder): each run's own.
    cfg.visualizer.name = cfg.experiment_name
    resumed = latest_checkpoint(folder) if osp.isdir(folder) else None
    if resumed is not None:
        cfg.resume, cfg.load_from = True, resumed
    runner = Runner.from_cfg(cfg)
    runner.train()
    return runner, resumed


def check_digits(dataset, digits):
    """``digits``, the first N images of the pretraining's training split
    (mmengine's ``indices``), refused if the split (config ``dataset``)
    has fewer: ``indices`` would silently take the whole split."""
    from mmpretrain.registry import DATASETS

    import randsac_mm.registration  # noqa: F401  (registers)
    size = len(DATASETS.build(dict(dataset, indices=None, pipeline=[])))
    if digits > size:
        raise UserError(f'pretrain_digits: {digits} is more than the '
                        f'{size} images of {dataset.type}\'s training split')
    return digits


def pretrain(name, settings, log=print):
    """Pretrains ``name`` (of ``PRETRAININGS``) once, with seed 0, or reuses
    its record; returns its final checkpoint's path and the minutes it
    took (both None in a report before it ran; 0 when it is another
    study's, ``settings.pretrained_from``)."""
    from mmengine.config import Config
    wanted = dict(pretraining=name, config=PRETRAININGS[name], seed=0,
                  epochs=settings.pretrain_epochs,
                  digits=settings.pretrain_digits, **cpu_precision_setting())
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
    record = read_record(path, wanted)
    if record is not None and (settings.report_only or
                               osp.isfile(checkpoint)):
        return checkpoint, record['minutes']
    if settings.report_only:
        return None, None
    log(f'[pretrain] {name}: {settings.pretrain_epochs} epochs on '
        f'{settings.pretrain_digits} digits')
    start = time.time()
    cfg = Config.fromfile(PRETRAININGS[name])
    set_epochs(cfg, settings.pretrain_epochs)
    cfg.randomness = dict(seed=0)
    cfg.experiment_name = f'pretrain_{name}'
    cfg.train_dataloader.dataset.indices = check_digits(
        cfg.train_dataloader.dataset, settings.pretrain_digits)
    _, resumed = train_resuming(cfg, folder)
    losses = logged_scalars(folder)
    minutes = (time.time() - start) / 60
    write_json(path, dict(
        settings=wanted, losses=[(r['step'], r['value']) for r in losses],
        resumed_from=resumed and osp.basename(resumed), minutes=minutes))
    return checkpoint, minutes


def reused_pretraining(name, wanted, path, checkpoint, settings, log=print):
    """Another study's pretraining ``name`` (``settings.pretrained_from``),
    whose record at ``path`` must have the ``wanted`` settings and, unless
    only reporting, its ``checkpoint`` exist: (checkpoint, 0.0 minutes:
    nothing trained here).

    Raises:
        UserError: that study has no such record, or not its checkpoint.
    """
    work_dir, records = settings.pretrained_from
    found = None
    if osp.isfile(path):
        with open(path) as f:
            found = json.load(f).get('settings')
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
    token dropped). Written once beside the checkpoint; returns its path."""
    from randsac_mm.checkpoint import (
        convert_for_downstream,
        read_checkpoint,
        save_atomic,
    )
    out = checkpoint[:-len('.pth')] + f'_encoder-{img_size}px.pth'
    if osp.isfile(out):
        return out
    _, state = read_checkpoint(checkpoint, checkpoint, UserError)
    depth = 1 + max(int(k.split('.')[2]) for k in state
                    if k.startswith('backbone.layers.'))
    encoder, _ = convert_for_downstream(state, img_size, num_layers=depth)
    return save_atomic(
        dict(state_dict=encoder, meta=dict(converted_from=checkpoint)), out)


def readout(name, checkpoint, settings, log=print):
    """The frozen encoder's token identity (``transfer_small_readout``)
    of pretraining ``name`` (None: random init), or its record."""
    from .transfer_small_readout import KINDS, TEST_IMAGES, token_identity
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
    record = read_record(path, wanted)
    if record is not None or settings.report_only or (
            name is not None and checkpoint is None):
        return record
    log(f"[readout] {name or 'random'}: token identity, frozen")
    start = time.time()
    accuracy = token_identity(
        checkpoint and downstream_encoder(checkpoint, settings.scene_size),
        settings)
    record = dict(settings=wanted, accuracy=accuracy,
                  minutes=(time.time() - start) / 60)
    write_json(path, record)
    return record


def point_at_scenes(cfg, scenes):
    """Points every data loader (and a COCO evaluator) of a digit-scene
    config at the study's scenes."""
    root = scenes.rstrip('/') + '/'
    for loader in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        cfg[loader].dataset.data_root = root
    for evaluator in ('val_evaluator', 'test_evaluator'):
        if 'ann_file' in cfg[evaluator]:
            cfg[evaluator].ann_file = osp.join(
                root, 'annotations', 'instances_validation.json')


def run_config(task, init, seed, checkpoint, settings):
    """The task's config for one run: its length, the study's scenes, the
    initialisation, the seed."""
    # A deep copy: Config.copy() shares the nested dicts, so one run's
    # init (None for random, frozen stages) would reach the next.
    cfg = copy.deepcopy(task_config(task))
    if settings.cfg_options:  # first: the study's own settings below win
        cfg.merge_from_dict(settings.cfg_options)
    point_at_scenes(cfg, settings.scenes)
    length = run_length(task, settings)
    if task == 'segmentation':
        set_iterations(cfg, length['iters'])
    else:
        set_epochs(cfg, length['epochs'])
    # A checkpoint at each quarter, the latest kept: a study stopped in a
    # run (the end of a session) resumes it there, not from its start.
    steps, = length.values()
    cfg.default_hooks.checkpoint.update(interval=max(steps // 4, 1),
                                        max_keep_ckpts=1)
    _, frozen = INITS[init]
    backbone = cfg.model.backbone
    if checkpoint is None:
        backbone.init_cfg = None  # the encoder's own init (RandSACViT's)
    else:
        backbone.init_cfg.checkpoint = checkpoint
    if frozen:
        backbone.frozen_stages = 'all'
    cfg.randomness = dict(seed=seed)
    cfg.experiment_name = f'{task}_{init}_seed{seed}'
    if settings.quick:  # the test's run: no worker processes
        for loader in ('train_dataloader', 'val_dataloader',
                       'test_dataloader'):
            cfg[loader].num_workers = 0
            cfg[loader].persistent_workers = False
    return cfg


def check_cfg_options(settings):
    """Builds each task's model and optimizer with ``settings.cfg_options``
    merged, as its runs will: a key no class takes is refused, one line
    naming it and the class, before anything is made."""
    from randsac_mm._cli.checks import (
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
        ``resumed_from``, ``minutes``); None in a report of a run not yet
        recorded.
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
    record = read_record(path, wanted)
    if record is not None or settings.report_only:
        return record
    start = time.time()
    cfg = run_config(task, init, seed, pretraining and downstream_encoder(
        checkpoints[pretraining], settings.scene_size), settings)
    folder = osp.join(settings.work_dir, 'runs', name)
    _, resumed = train_resuming(cfg, folder)
    logged = TASKS[task]['metrics']
    final = logged_scalars(folder, key=next(iter(logged.values())))
    if not final:
        raise RuntimeError(f'{folder}: the run logged no '
                           f'{next(iter(logged.values()))}')
    step = final[-1]['step']
    metrics = {name: value_at(folder, key, step)
               for name, key in logged.items()}
    record = dict(settings=wanted, metrics=metrics,
                  losses=[(r['step'], r['value'])
                          for r in logged_scalars(folder)],
                  resumed_from=resumed and osp.basename(resumed),
                  minutes=(time.time() - start) / 60)
    write_json(path, record)
    return record


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


def summary(rows, settings):
    """Mean, spread (sample standard deviation; None with one seed) and the
    gain over random init of each (task, metric, init), over the seeds run.
    """
    out = []
    for task in settings.tasks:
        for metric in TASKS[task]['metrics']:
            values = {init: [r['value'] for r in rows if r['task'] == task
                             and r['metric'] == metric and r['init'] == init]
                      for init in settings.inits
                      if init in TASKS[task]['inits']}
            random = values.get('random')
            for init, vals in values.items():
                if not vals:
                    continue
                entry = dict(task=task, metric=metric, init=init,
                             seeds=len(vals), mean=statistics.mean(vals),
                             std=statistics.stdev(vals) if len(vals) > 1
                             else None)
                if random and init != 'random':
                    paired = min(len(vals), len(random))
                    entry['gain_over_random'] = statistics.mean(
                        a - b for a, b in zip(vals[:paired],
                                              random[:paired]))
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
                f"({record['minutes']:.1f} min)")
    rows = table_rows(records)
    minutes['downstream'] = sum(r['minutes'] for r in records)
    shown = {k: v for k, v in asdict(settings).items()
             if k not in ('report_only', 'readout_only', 'quick')}
    result = dict(settings=shown, rows=rows,
                  summary=summary(rows, settings), token_identity=readouts,
                  minutes=minutes)
    write_json(settings.records.rstrip('/') + '.json', result)
    if not settings.readout_only:  # a report too: from the runs here
        from .transfer_small_pictures import draw_predictions
        for task in settings.tasks:
            draw_predictions(task, settings, log)
    return result


def ensure_scenes(settings, log=print):
    """Makes the study's scenes, or reuses them when their statistics say
    they were made with the same counts and seed."""
    stats_path = osp.join(settings.scenes, 'statistics.json')
    if osp.isfile(stats_path):
        with open(stats_path) as f:
            stats = json.load(f)
        if (stats['seed'], stats['training']['scenes'],
                stats['validation']['scenes']) == (
                    settings.scenes_seed, settings.train_scenes,
                    settings.val_scenes):
            return
    log(f'[scenes] {settings.train_scenes} training and '
        f'{settings.val_scenes} validation scenes in {settings.scenes}')
    make_scenes(settings.scenes, settings.train_scenes, settings.val_scenes,
                size=settings.scene_size, seed=settings.scenes_seed,
                log=lambda line: None)


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_argument('--tasks', nargs='+', choices=list(TASKS),
                        help='None: both')
    parser.add_argument('--inits', nargs='+', choices=list(INITS),
                        help='None: all (frozen: segmentation only)')
    parser.add_argument('--seeds', nargs='+', type=int,
                        help='seeds of the downstream runs; None: 0 1')
    defaults = TransferSettings()
    for flag, text in (
            ('--train-scenes', 'training scenes'),
            ('--val-scenes', 'validation scenes'),
            ('--pretrain-epochs', 'epochs of each pretraining'),
            ('--segmentation-iters', 'iterations of each UperNet run'),
            ('--detection-epochs', 'epochs of each Mask R-CNN run')):
        key = flag[2:].replace('-', '_')
        parser.add_argument(flag, type=positive_int,
                            help=f'{text}; None: {getattr(defaults, key)}')
    parser.add_path('--work-dir', kind=OUTPUT_FOLDER,
                    help='scenes, checkpoints and logs; None: '
                    f'{TransferSettings.work_dir}')
    parser.add_path('--records', kind=OUTPUT_FOLDER,
                    help='folder of the records and pictures; the table is '
                    f'<records>.json; None: {TransferSettings.records} '
                    '(--quick: <work-dir>/records)')
    parser.add_argument('--pretrained-from', nargs=2,
                        metavar=('WORK_DIR', 'RECORDS'),
                        help="another study's work dir and records whose "
                        'pretrainings (same epochs and digits) this one '
                        'uses: nothing is pretrained, and its minutes are '
                        'not counted again (the encoder converted for the '
                        "scenes is written beside that study's checkpoint, "
                        'as its own runs do); None: its own')
    add_cfg_options(
        parser, 'entries merged into every downstream config (and the '
        "readout's encoder), e.g. "
        'optim_wrapper.paramwise_cfg.layer_decay_rate=1.0; recorded in the '
        "records' settings; the flags above win over the keys they set; "
        'None: the configs as written')
    parser.add_argument('--readout-only', action='store_true',
                        help='pretrain and read out each encoder frozen; no '
                        'downstream run')
    parser.add_argument('--report-only', action='store_true',
                        help='train nothing: the table of the records so far')
    parser.add_argument('--quick', action='store_true',
                        help='the test: ' + ', '.join(
                            f'{k}={v}' for k, v in QUICK.items()))
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    values = dict(QUICK) if args.quick else {}
    for key in ('tasks', 'inits', 'seeds', 'train_scenes', 'val_scenes',
                'pretrain_epochs', 'segmentation_iters', 'detection_epochs',
                'cfg_options', 'pretrained_from', 'work_dir', 'records',
                'readout_only', 'report_only', 'quick'):
        value = getattr(args, key)
        if value not in (None, False):
            values[key] = value
    if args.quick and 'records' not in values:
        values['records'] = osp.join(values.get(
            'work_dir', TransferSettings.work_dir), 'records')
    return values


def main(argv=None):
    values = parse_args(argv)
    use_device('cpu')
    import randsac_mm.downstream  # noqa: F401  (registers)
    settings = TransferSettings(**values)
    if settings.cfg_options:
        check_cfg_options(settings)
    os.makedirs(settings.work_dir, exist_ok=True)
    result = run_study(settings, log=lambda line: print(line, flush=True))
    print('\n' + markdown(result['summary']))
    if result['token_identity']:
        print('\ntoken identity, frozen (%): ' + '; '.join(
            f"{k}: digits {v['digits']:.1f}, on the scenes' canvas "
            f"{v['canvas']:.1f}, scenes {v['scenes']:.1f}"
            for k, v in result['token_identity'].items()))
    took = result['minutes']
    print(f"wrote {settings.records.rstrip('/')}.json (minutes recorded: "
          + ', '.join(f'{k} {v:.0f}' for k, v in took.items())
          + f', {sum(took.values()):.0f} in all)')


if __name__ == '__main__':
    run_tool(main, prog=PROG)
