"""What the small dense transfer study compares and how one run is set
up: the pretrainings, the initialisations, the tasks and their configs,
the study's settings, and the config of one run (its length, the study's
scenes, the initialisation, the seed)."""
import copy
import functools
import json
import os.path as osp
from dataclasses import dataclass, field

from randsac_mm.cli.errors import UserError
from randsac_mm.engine.schedule_length import set_epochs, set_iterations

from ..records import settings_stamp

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
    # The length the curve says pays: at 10 epochs (the demo's) every
    # pretraining was below random init downstream, at 160 every run above
    # (docs/transfer_study.md, "Pretraining that pays").
    pretrain_epochs: int = 160
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

    def recorded(self, wanted, with_options=True):
        """A record's ``wanted`` settings, with the config options when
        given and ``with_options`` (a downstream run's; records of the
        configs as written do not name them), and how the step ran
        (``records.settings_stamp``: on a CPU, its precision when not
        float32)."""
        if self.cfg_options and with_options:
            wanted = dict(wanted, cfg_options=self.cfg_options)
        return dict(wanted, **settings_stamp())

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


def checkpoint_each_quarter(cfg, steps):
    """A checkpoint at each quarter of a run of ``steps`` epochs or
    iterations (the unit its schedule counts), the latest kept: a study
    stopped in a run (the end of a session) resumes it there, not from its
    start."""
    cfg.default_hooks.checkpoint.update(interval=max(steps // 4, 1),
                                        max_keep_ckpts=1)


def run_config(task, init, seed, checkpoint, settings):
    """The task's config for one run: its length, the study's scenes, the
    initialisation, the seed."""
    # A deep copy: Config.copy() shares the nested dicts, so one run's
    # init (None for random, frozen stages) would reach the next.
    cfg = copy.deepcopy(task_config(task))
    # First: the study's own settings below win. Merged as they are, not
    # through the tools' apply_cfg_options: the study fits the schedule to
    # its own length below, once (fitting it twice would keep the shorter
    # length's warmup).
    if settings.cfg_options:
        cfg.merge_from_dict(settings.cfg_options)
    point_at_scenes(cfg, settings.scenes)
    length = run_length(task, settings)
    if task == 'segmentation':
        set_iterations(cfg, length['iters'])
    else:
        set_epochs(cfg, length['epochs'])
    steps, = length.values()
    checkpoint_each_quarter(cfg, steps)
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
