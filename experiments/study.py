"""The paper's ablations at CPU scale, on real images: the small-scale study.
From the repository root:

    python -m experiments.study            # 12 variants, 3 seeds, 5
        # epochs: about 1.6 h on 2 cores
    python -m experiments.study --curve    # training length: 7 variants,
        # 3 seeds, 30 epochs read out at 5/10/20/30 with three readouts:
        # about 8.5 h on one core
    python -m experiments.study --gpu-study  # the curve's variants and
        # readouts on all 60,000 images, 5 epochs, one seed, on CUDA:
        # about 15 min on one H100 (estimated, not yet run on a GPU)
    python -m experiments.study --quick    # the test's run

Each variant is a config under ``configs/small_scale/`` (its header cites
the paper row it scales down). For every variant and seed the study
pretrains it (mmengine's Runner, as ``tools/train.py`` would), keeping a
checkpoint at every epoch of ``eval_epochs``, and reads out each of those
checkpoints' frozen encoder on labelled Fashion-MNIST with
``randsac_mm.evaluation``: the paper's linear probe, a weighted k-NN and an
attentive probe. ``random`` is the same encoder initialised and not
trained (epoch 0). One long run per variant and seed thus gives a learning
curve.

A study runs on the CPU (bf16 autocast where the CPU has bf16
instructions, else float32; randsac_mm.precision, and the records say
which) unless its settings say 'cuda'
(``--device cuda`` or ``--gpu-study``): then it pretrains in bf16 autocast
(the configs' ``AutocastOptimWrapper``) with dataloader workers and
extracts the readouts' features and trains the probes on the GPU. A
GPU run's records name its device, so that it is never taken for a CPU
run. Asked for CUDA that cannot be used, the command stops (exit code 2),
never falling back to the CPU.

Everything lands in ``work_dir/runs/<variant>_seed<seed>/``: mmengine's
checkpoints and logs, ``pretrain.json`` (settings, losses, time) and
``eval_epoch<E>.json`` (settings, readouts). A finished run with the same
settings is reused, an interrupted one resumes from its last checkpoint,
and a readout missing from an evaluation is added to it, so a study may
stop and continue across sessions; ``--report-only`` reports the runs
recorded so far without training, and reads no data.
"""
import argparse
import contextlib
import functools
import math
import os
import os.path as osp
import statistics
import time
from dataclasses import asdict, dataclass, field

from randsac_mm._cli.args import HelpFormatter, positive_int, seed_value
from randsac_mm._cli.config import set_epochs
from randsac_mm._cli.device import DEVICES, NoUsableCuda, use_device
from randsac_mm._cli.errors import UserError, add_debug_arg, run_tool
from randsac_mm.analysis.paper import paper_figure
from randsac_mm.apis import build_model
from randsac_mm.evaluation import (
    accuracy_readouts,
    labelled_loaders,
    readout_title,
)

from . import REPO_ROOT
from .benchmark_io import code_commit, cpu_precision_setting, machine_info
from .records import read_record, same_settings, train_resuming, write_record
from .scalars import logged_scalars

__all__ = ['ORDERINGS', 'QUICK', 'READOUT_NAMES', 'SMALL_SCALE', 'StudyPlan',
           'StudySettings', 'VARIANTS',
           'ordering_gaps', 'run_study', 'summarize']

PROG = 'python -m experiments.study'
CONFIGS = osp.join(REPO_ROOT, 'configs', 'small_scale')
EVAL_DATA = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets',
                     'fashion-mnist.py')

# name: (config under configs/small_scale, or None: the untrained encoder
# of the base; the paper row it scales down).
VARIANTS = {
    'random': (None, 'no pretraining'),
    'patch-raster': ('randsac_vit-mini-p4_patch-raster_fashion-mnist.py',
                     'Serialization, patch-raster (ViT-T)'),
    'patch-random': ('randsac_vit-mini-p4_patch-random_fashion-mnist.py',
                     'Serialization, patch-random (ViT-T)'),
    'square-m2': ('randsac_vit-mini-p4_square-m2_fashion-mnist.py',
                  'Square size M=2 (ViT-T)'),
    'square-16to4': ('randsac_vit-mini-p4_square-m2-16to4_fashion-mnist.py',
                     'Hierarchy, square 16 -> 4 (ViT-T)'),
    'blob-k7': ('randsac_vit-mini-p4_blob-k7_fashion-mnist.py',
                'Segment Coherence, K=7 (ViT-T)'),
    'blob-k7-shuffle': ('randsac_vit-mini-p4_blob-k7-shuffle_fashion-mnist.py',
                        'Segment Coherence, Shuffle K=7 (ViT-T)'),
    'blob-7to3': ('randsac_vit-mini-p4_blob-7to3_fashion-mnist.py',
                  'Hierarchy, blob 7 -> 3 (ViT-T)'),
    'two-stream': (
        'randsac_vit-mini-p4_blob-11to5_two-stream_fashion-mnist.py',
        'Architectures, two-stream, blob 11 -> 5 (ViT-T)'),
    'transformer': (
        'randsac_vit-mini-p4_blob-11to5_transformer_fashion-mnist.py',
        'Architectures, transformer, blob 11 -> 5 (ViT-T)'),
    'transformer-skip': (
        'randsac_vit-mini-p4_blob-11to5_transformer-skip_fashion-mnist.py',
        'Architectures, transformer-skip, blob 11 -> 5 (ViT-T)'),
    'mae': ('mae_vit-mini-p4_fashion-mnist.py',
            'Low-data, MAE, decoder matched (ViT-S)'),
}
# The config every variant's untrained encoder comes from.
RANDOM_BASE = 'randsac_vit-mini-p4_square-m2_fashion-mnist.py'
# The paper's findings as (worse, better, what the paper shows).
ORDERINGS = [
    ('random', 'square-m2', 'pretraining helps at all'),
    ('patch-raster', 'patch-random',
     'Table "Serialization": random order beats raster'),
    ('patch-random', 'square-m2',
     'Table "Segments": squares beat single patches'),
    ('patch-random', 'blob-k7',
     'Table "Segments": blobs beat single patches'),
    ('blob-k7-shuffle', 'blob-k7',
     'Table "Segment Coherence": coherent beats shuffled'),
    ('patch-random', 'blob-k7-shuffle',
     'Table "Segment Coherence": shuffled still beats patch-random'),
    ('square-m2', 'square-16to4',
     'Table "Hierarchical Segment Prediction": square 16 -> 4 beats flat 16'),
    ('blob-k7', 'blob-7to3',
     'Table "Hierarchical Segment Prediction": blob 7 -> 3 beats flat 7'),
    ('two-stream', 'transformer',
     'Table "Performance of Architectures": transformer beats two-stream'),
    ('transformer', 'transformer-skip',
     'Table "Performance of Architectures": the skip layer helps'),
    ('mae', 'transformer-skip',
     'Table "Low-data pre-training": RandSAC beats MAE'),
]
READOUT_NAMES = {r: readout_title(r) for r in accuracy_readouts()}
# What the test suite runs: 3 variants, 1 seed, 1 epoch on 256 images.
QUICK = dict(variants=['random', 'patch-raster', 'square-m2'], seeds=[0],
             epochs=1, train_images=256, test_images=512, probe_epochs=10)
# --curve: does the gap between segment variants open with training
# length? The variants of the paper's segment orderings, and MAE with the
# RandSAC row it is compared with.
CURVE = dict(variants=['random', 'patch-random', 'square-m2', 'blob-k7',
                       'blob-k7-shuffle', 'transformer-skip', 'mae'],
             epochs=30, eval_epochs=[5, 10, 20, 30],
             readouts=['linear', 'knn', 'attentive'],
             work_dir='work_dirs/small_scale_curve')
# --gpu-study: the curve's variants and readouts pretrained on all 60,000
# training images (4690 steps: 10x the ablation table's, 1.7x the CPU
# curve's), sized for one H100 in about 15 minutes. An estimate, not yet
# measured on a GPU: see docs/small_scale_study.md, "On a GPU". One seed
# (--seeds 0 1 2 adds as much again per seed, reusing seed 0); the probes
# keep the CPU studies' 6000 labelled images, so that the readouts compare
# with theirs (--probe-images 60000: the paper's protocol).
GPU_STUDY = dict(variants=CURVE['variants'], readouts=CURVE['readouts'],
                 seeds=[0], epochs=5, train_images=60000, probe_images=6000,
                 device='cuda', work_dir='work_dirs/small_scale_gpu')
# Dataloader workers of a CUDA run's pretraining. The layouts are drawn in
# the data pipeline (0.3-0.5 ms an image on one core) and a GPU step of 64
# images takes about 20 ms, so the main process alone would starve the GPU;
# 8 workers leave half of a 16-core node to the main process and the
# probes. Workers do not change the data: PerSampleSeed keys every draw on
# (seed, epoch, image). A CPU run keeps the configs' main-process loading.
CUDA_WORKERS = 8


@dataclass(frozen=True)
class StudyPlan:
    """What a study compares.

    Args:
        name (str): how its reports name it.
        variants (dict): {name: (config file in the study's configs folder,
            or None for the untrained encoder of ``random_base``; the
            paper row it stands for)}.
        random_base (str): the config of the untrained encoder.
        orderings (list): the paper's findings as (worse, better, what the
            paper shows), the key ones first.
        cuda_loader (dict): the training loader's settings on CUDA.
        records_data_root (bool): whether a run's records name the data
            root it read (False: the same files at another path are the
            same run).
    """
    name: str
    variants: dict
    random_base: str
    orderings: list
    cuda_loader: dict = field(default_factory=dict)
    records_data_root: bool = True


# The CPU-scale study of configs/small_scale.
SMALL_SCALE = StudyPlan(
    'small-scale', VARIANTS, RANDOM_BASE, ORDERINGS,
    cuda_loader=dict(num_workers=CUDA_WORKERS, persistent_workers=True,
                     pin_memory=True))


@dataclass
class StudySettings:
    """What a study runs.

    Args:
        configs (str): the folder of the variants' configs.
        eval_data (str): the labelled data config (Fashion-MNIST).
        variants (list[str]): names of the plan's variants.
        seeds (list[int]): one run per variant and seed.
        epochs (int | None): pretraining length (default: the configs').
        eval_epochs (list[int] | None): the epochs whose checkpoints are
            read out, increasing, the last being the run's length (default:
            the last epoch only).
        readouts (list[str]): of ``READOUT_NAMES``.
        train_images, test_images (int | None): the first so many images
            (default: the configs' 6000 and all 10,000).
        probe_images (int | None): the first so many training images train
            the probes and hold the k-NN's neighbours (default:
            ``train_images``, the pretraining images).
        probe_epochs (int): the probes' epochs on the cached features.
        data_root (str | None): Fashion-MNIST's IDX files (default: the
            configs').
        work_dir (str): where runs and results go.
        device (str): 'cpu' (bf16 where the CPU has bf16 instructions,
            else float32) or 'cuda' (bf16 pretraining with dataloader
            workers, features extracted on the GPU in float32).
        quick (bool): log every iteration (short runs log several losses).
        report_only (bool): train and evaluate nothing: report the runs
            whose readouts are all recorded (a study under way).
        plan (StudyPlan): the variants and orderings (default: the
            small-scale study's).
        compile (bool): pretrain with the loss compiled
            (``CompileLossHook``, as ``tools/train.py --compile``).
        workers (int | None): the training loader's worker processes
            (default: the configs', or the plan's on CUDA). Workers do not
            change the data: every draw is keyed on (seed, epoch, image).
    """
    configs: str
    eval_data: str
    variants: list = None
    seeds: list = field(default_factory=lambda: [0, 1, 2])
    epochs: int = None
    eval_epochs: list = None
    readouts: list = field(default_factory=lambda: ['linear', 'knn'])
    train_images: int = None
    test_images: int = None
    probe_images: int = None
    probe_epochs: int = 90
    data_root: str = None
    work_dir: str = 'work_dirs/small_scale_study'
    device: str = 'cpu'
    quick: bool = False
    report_only: bool = False
    plan: StudyPlan = SMALL_SCALE
    compile: bool = False
    workers: int = None

    def __post_init__(self):
        if self.variants is None:
            self.variants = list(self.plan.variants)
        unknown = sorted(set(self.variants) - set(self.plan.variants))
        if unknown:
            raise ValueError(f'variants: unknown {unknown}; allowed: '
                             f'{list(self.plan.variants)}')
        unknown = sorted(set(self.readouts) - set(READOUT_NAMES))
        if unknown:
            raise ValueError(f'readouts: unknown {unknown}; allowed: '
                             f'{list(READOUT_NAMES)}')
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f'seeds must be distinct, got {self.seeds}')
        if self.device not in DEVICES:
            raise ValueError(f'device must be one of {DEVICES}, got '
                             f'{self.device!r}')
        for name in ('train_images', 'test_images', 'probe_images'):
            count = getattr(self, name)
            if count is not None and count < 1:
                raise ValueError(f'{name} must be >= 1 or None, got {count}')
        length = self.epochs or self.config_epochs()
        if self.eval_epochs is None:
            self.eval_epochs = [length]
        if sorted(set(self.eval_epochs)) != list(self.eval_epochs) or \
                self.eval_epochs[0] < 1 or self.eval_epochs[-1] != length:
            raise ValueError(
                'eval_epochs must increase, start at >= 1 and end at the '
                f"run's length {length}, got {self.eval_epochs}")

    def config_epochs(self):
        """The pretraining length the study's configs set."""
        from mmengine.config import Config
        return Config.fromfile(osp.join(
            self.configs, self.plan.random_base)).train_cfg.max_epochs


def variant_config(name, settings):
    """The variant's pretraining config with the study's overrides."""
    from mmengine.config import Config
    cfg = Config.fromfile(osp.join(settings.configs,
                                   settings.plan.variants[name][0] or
                                   settings.plan.random_base))
    dataset = cfg.train_dataloader.dataset
    if dataset.type == 'InMemoryBatchImages':  # the images it holds
        dataset = dataset.dataset
    if settings.train_images:
        dataset.indices = settings.train_images
    if settings.data_root:
        dataset.data_root = settings.data_root
    if settings.epochs:
        set_epochs(cfg, settings.epochs)
    if settings.quick:  # so that a run of a few iterations logs several
        cfg.default_hooks.logger.interval = 1
    # The precision needs no override: the configs' AutocastOptimWrapper
    # autocasts to bf16 on CUDA and on a CPU with bf16 instructions, and
    # the records say which (_added_settings).
    if settings.device == 'cuda':
        cfg.train_dataloader.update(settings.plan.cuda_loader)
    if settings.workers is not None:
        cfg.train_dataloader.update(num_workers=settings.workers,
                                    persistent_workers=settings.workers > 0)
    if settings.compile:
        cfg.custom_hooks = list(cfg.custom_hooks) + [
            dict(type='CompileLossHook')]
    return cfg


def set_checkpoints(cfg, eval_epochs):
    """A checkpoint at every evaluated epoch, and between them at the
    config's interval where it divides them (so that an interrupted run
    resumes near where it stopped); all kept when several epochs are read
    out, else the latest (the last is the evaluated one)."""
    hook = cfg.default_hooks.checkpoint
    hook.interval = math.gcd(*eval_epochs, hook.interval)
    hook.max_keep_ckpts = -1 if len(eval_epochs) > 1 else 1


def checkpoint_name(epoch):
    """mmengine's file name of a run's checkpoint after ``epoch``."""
    return f'epoch_{epoch}.pth'


def run_dir(name, seed, settings):
    return osp.join(settings.work_dir, 'runs', f'{name}_seed{seed}')


def pretrain(name, seed, settings, need_checkpoints=True):
    """Pretrains one variant with one seed, keeping a checkpoint at every
    epoch of ``settings.eval_epochs``; reuses a finished run with the same
    settings (without its checkpoints when ``need_checkpoints`` is False:
    every readout is already recorded) and resumes an interrupted one.

    Returns:
        dict: ``settings``, ``checkpoints`` ({str(epoch): file name in the
        run's folder}), ``first_loss``, ``final_loss``, ``epoch_losses``
        (the last logged loss of each epoch), ``resumed_from``,
        ``minutes``, and the ``machine`` and ``commit`` it ran on (records
        made before these were recorded lack them).
    """
    folder = run_dir(name, seed, settings)
    record = osp.join(folder, 'pretrain.json')
    wanted = dict(variant=name, config=settings.plan.variants[name][0],
                  seed=seed, epochs=settings.epochs,
                  train_images=settings.train_images,
                  data_root=_recorded_root(settings),
                  **_added_settings(settings))
    checkpoints = {str(e): checkpoint_name(e) for e in settings.eval_epochs}
    done = read_record(record, wanted, '--work-dir')
    if done is not None:
        lacking = [p for p in checkpoints.values()
                   if not osp.isfile(osp.join(folder, p))]
        if need_checkpoints and lacking:
            raise UserError(
                f'--work-dir: {folder} records this run but lacks its '
                f'checkpoints {lacking} (eval_epochs {settings.eval_epochs})'
                ': give another work dir or remove it')
        return done
    start = time.time()
    cfg = variant_config(name, settings)
    cfg.randomness = dict(seed=seed)
    cfg.experiment_name = f'{name}_seed{seed}'
    set_checkpoints(cfg, settings.eval_epochs)
    _, resume_from = train_resuming(cfg, folder)
    losses = logged_scalars(folder)
    done = dict(settings=wanted, checkpoints=checkpoints,
                first_loss=losses[0]['value'] if losses else None,
                final_loss=losses[-1]['value'] if losses else None,
                epoch_losses={str(r['epoch']): r['value'] for r in losses},
                resumed_from=resume_from and osp.basename(resume_from),
                minutes=(time.time() - start) / 60,
                machine=machine_info(), commit=code_commit())
    write_record(record, done)
    return done


def recorded_readouts(name, seed, epoch, settings, checkpoint=None,
                      refuse_others=False):
    """What ``eval_epoch<epoch>.json`` holds for these settings, and its
    path: ``({'settings': ...}, path)`` when nothing is recorded yet for
    them.

    Raises:
        UserError: with ``refuse_others`` (:func:`evaluate`, which writes
            the file), when it holds readouts of other settings.
    """
    cache = osp.join(run_dir(name, seed, settings),
                     f'eval_epoch{epoch}.json')
    wanted = dict(checkpoint=checkpoint, train_images=settings.train_images,
                  test_images=settings.test_images,
                  probe_epochs=settings.probe_epochs,
                  data_root=_recorded_root(settings),
                  **_added_settings(settings, 'probe_images'))
    cached = read_record(cache, wanted, '--work-dir') if refuse_others \
        else same_settings(cache, wanted)
    return cached or dict(settings=wanted), cache


def is_recorded(name, seed, epoch, settings, checkpoint=None):
    """Whether every readout of ``settings`` is recorded at this epoch."""
    recorded = recorded_readouts(name, seed, epoch, settings, checkpoint)[0]
    return set(settings.readouts) <= set(recorded)


def _recorded_root(settings):
    """The data root a run's records name: where the files lie, unless
    the plan keeps that out of a run's identity (records made on one
    machine are another's runs)."""
    return settings.data_root if settings.plan.records_data_root else None


def _added_settings(settings, *names):
    """What the records gained after the first studies were committed:
    ``device``, and the settings ``names`` (e.g. 'probe_images'), each only
    when not at its default ('cpu', None), so that the committed records
    (docs/benchmarks/) still match a study of the same settings."""
    added = {name: getattr(settings, name) for name in names
             if getattr(settings, name) is not None}
    if settings.device != 'cpu':  # bf16 on a GPU
        added['device'] = settings.device
    else:  # bf16 on a CPU with bf16 instructions, else float32 (nothing)
        added.update(cpu_precision_setting())
    if settings.compile:
        added['compile'] = True
    return added


def evaluate(name, seed, epoch, settings, loaders, checkpoint=None):
    """The frozen encoder's readouts at one checkpoint (a file name in the
    run's folder; None: the untrained encoder), cached in
    ``eval_epoch<epoch>.json``; readouts already there are kept.

    Args:
        loaders (callable): returns the (train, test) labelled loaders;
            called only when a readout is missing, so that reporting
            recorded readouts reads no data.
    """
    from randsac_mm.evaluation import evaluate_frozen
    folder = run_dir(name, seed, settings)
    done, cache = recorded_readouts(name, seed, epoch, settings, checkpoint,
                                    refuse_others=True)
    missing = [r for r in settings.readouts if r not in done]
    if missing:
        start = time.time()
        model = build_model(variant_config(name, settings), checkpoint and
                            osp.join(folder, checkpoint), seed=seed)
        with _float32_matmuls(settings.device):
            done.update(evaluate_frozen(
                model.to(settings.device), *loaders(),
                probe_epochs=settings.probe_epochs, seed=seed,
                readouts=missing, probe_device=settings.device,
                # A GPU study's features in full float32 (the protocol of
                # its records); a CPU's as its pretraining.
                precision='float32' if settings.device == 'cuda' else 'auto'))
        done['eval_minutes'] = done.get('eval_minutes', 0.0) + \
            (time.time() - start) / 60
        write_record(cache, done)
    return done


@contextlib.contextmanager
def _float32_matmuls(device):
    """On CUDA, matmuls and convolutions in full float32 (no TF32) while
    the features are extracted. The pretraining's AutocastOptimWrapper
    turns TF32 on for the rest of the process, so without this a checkpoint
    would read out differently, in the last digits, after a pretraining in
    this process than when its run is reused.

    Through torch's ``fp32_precision`` settings (the ones
    ``enable_tf32`` sets): reading the older ``allow_tf32`` flags raises
    once those were set.
    """
    if device != 'cuda':
        yield
        return
    from randsac_mm.engine.autocast_optim_wrapper import tf32_settings
    settings = tf32_settings()
    before = [s.fp32_precision for s in settings]
    for setting in settings:
        setting.fp32_precision = 'ieee'
    try:
        yield
    finally:
        for setting, value in zip(settings, before):
            setting.fp32_precision = value


def run_one(name, seed, settings, loaders):
    """Pretrains one variant with one seed and reads it out at every epoch
    of ``settings.eval_epochs`` (the untrained encoder: epoch 0 only).
    ``loaders``: see :func:`evaluate`.

    Returns:
        list[dict]: one record per read-out epoch.
    """
    if settings.plan.variants[name][0] is None:
        if settings.report_only and not is_recorded(name, seed, 0, settings):
            return []
        result = evaluate(name, seed, 0, settings, loaders)
        return [dict(variant=name, seed=seed, epoch=0, loss=None,
                     pretrain_minutes=0.0,
                     **{r: result[r] for r in settings.readouts})]
    # Checkpoints are needed only for readouts not yet recorded (a study's
    # records may outlive its checkpoints, e.g. when kept in the repo).
    recorded = all(
        is_recorded(name, seed, epoch, settings, checkpoint_name(epoch))
        for epoch in settings.eval_epochs)
    if settings.report_only and not (recorded and osp.exists(
            osp.join(run_dir(name, seed, settings), 'pretrain.json'))):
        return []
    trained = pretrain(name, seed, settings, need_checkpoints=not recorded)
    records = []
    for epoch in settings.eval_epochs:
        result = evaluate(name, seed, epoch, settings, loaders,
                          trained['checkpoints'][str(epoch)])
        records.append(dict(
            variant=name, seed=seed, epoch=epoch,
            loss=trained['epoch_losses'].get(str(epoch)),
            pretrain_minutes=trained['minutes'],
            **{r: result[r] for r in settings.readouts}))
    return records


def summarize(records, variants, readouts, plan=SMALL_SCALE):
    """Mean and standard deviation over seeds, per variant and readout, of
    the records of one epoch."""
    summary = {}
    for name in variants:
        mine = [r for r in records if r['variant'] == name]
        if not mine:
            continue
        config, row = plan.variants[name]
        entry = dict(seeds=[r['seed'] for r in mine], paper_row=row,
                     config=config, paper_linear=paper_figure(config))
        for readout in readouts:
            values = [r[readout] for r in mine]
            entry[readout] = dict(
                values=values, mean=statistics.fmean(values),
                std=statistics.stdev(values) if len(values) > 1 else None)
        summary[name] = entry
    return summary


def ordering_gaps(summaries, readouts, plan=SMALL_SCALE):
    """Each paper ordering's gap (better - worse mean, percentage points)
    and its standard error, sqrt(s_w^2 / n + s_b^2 / n), at every epoch
    both variants were read out, and a verdict at the longest: 'holds'
    (gap > 2 SE), 'reversed' (gap < -2 SE) or 'undecided'.

    Both means are taken over the seeds the two variants share, so a study
    under way, with more seeds recorded for one than for the other,
    compares like with like; ``seeds`` in each epoch's entry names them.

    Args:
        summaries (dict): {epoch: :func:`summarize` of that epoch}.
        plan (StudyPlan): whose orderings.
    """
    orderings = []
    for worse, better, paper in plan.orderings:
        epochs = [e for e, s in summaries.items()
                  if worse in s and better in s]
        if not epochs:
            continue
        entry = dict(worse=worse, better=better, paper=paper, readouts={})
        for readout in readouts:
            per_epoch = []
            for epoch in epochs:
                low, high = summaries[epoch][worse], summaries[epoch][better]
                seeds = [s for s in low['seeds'] if s in high['seeds']]
                if not seeds:
                    continue
                lows = _values_of_seeds(low, readout, seeds)
                highs = _values_of_seeds(high, readout, seeds)
                gap = statistics.fmean(highs) - statistics.fmean(lows)
                se = None if len(seeds) < 2 else math.sqrt(
                    (statistics.variance(lows) + statistics.variance(highs))
                    / len(seeds))
                per_epoch.append(dict(epoch=epoch, gap=gap, se=se,
                                      seeds=seeds))
            if not per_epoch:
                continue
            last = per_epoch[-1]
            if last['se'] is None:
                verdict = 'one seed: no standard error'
            elif last['gap'] > 2 * last['se']:
                verdict = 'holds'
            elif last['gap'] < -2 * last['se']:
                verdict = 'reversed'
            else:
                verdict = 'undecided (within 2 SE)'
            entry['readouts'][readout] = dict(by_epoch=per_epoch,
                                              verdict=verdict)
        if entry['readouts']:
            orderings.append(entry)
    return orderings


def _values_of_seeds(entry, readout, seeds):
    """A :func:`summarize` entry's values of one readout, for ``seeds``."""
    by_seed = dict(zip(entry['seeds'], entry[readout]['values']))
    return [by_seed[s] for s in seeds]


def _portable_paths(settings):
    """``settings`` (an ``asdict``) with its paths under the current
    directory made relative to it, so a committed study.json does not name
    the machine it ran on."""
    shown = dict(settings)
    for key in ('configs', 'eval_data', 'work_dir', 'data_root'):
        path = shown[key]
        if path and osp.isabs(path):
            relative = osp.relpath(path)
            if not relative.startswith(os.pardir):
                shown[key] = relative
    return shown


def run_study(settings, log=print):
    """Runs (or reuses) every run of the study and writes its results.

    Writes to ``settings.work_dir``: ``study.json`` (settings, every record,
    the summary per epoch, the orderings), ``study.md`` (tables),
    ``study.png`` (bars at the last epoch) and, with several read-out
    epochs, ``curve.png`` (accuracy against epochs).

    Returns:
        dict: what study.json holds.
    """
    os.makedirs(osp.join(settings.work_dir, 'runs'), exist_ok=True)
    loaders = study_loaders(settings)
    records = []
    total = len(settings.variants) * len(settings.seeds)
    done = 0
    # Seed-major: a study stopped early has every variant at some seeds.
    for seed in settings.seeds:
        for name in settings.variants:
            done += 1
            records_of_run = run_one(name, seed, settings, loaders)
            if not records_of_run:
                log(f'[study {done}/{total}] {name} seed {seed}: not '
                    'recorded yet (report only)')
            records += records_of_run
            log_records(records_of_run, f'[study {done}/{total}]', settings,
                        log)
    return write_results(records, settings)


def study_loaders(settings):
    """The labelled (train, test) loaders of the readouts, as a function
    that builds them at its first call (at the first readout not recorded
    yet: a report of recorded runs, e.g. a clone's committed records,
    needs no data) and returns the same ones after."""
    @functools.cache
    def loaders():
        return labelled_loaders(
            settings.eval_data, settings.probe_images or settings.train_images,
            settings.test_images, settings.data_root)
    return loaders


def log_records(records, prefix, settings, log):
    """One line per record of :func:`run_one`: its readouts."""
    for record in records:
        shown = ', '.join(f'{READOUT_NAMES[r]} {record[r]:.2f}%'
                          for r in settings.readouts)
        log(f"{prefix} {record['variant']} seed {record['seed']} epoch "
            f"{record['epoch']}: {shown}")


def write_results(records, settings):
    """Summarises ``records`` (of :func:`run_one`) and writes the report
    (see :func:`run_study`); returns what study.json holds."""
    if not records:
        raise RuntimeError(f'{settings.work_dir}: no run of these settings '
                           'is recorded yet; run the study without '
                           'report_only first')
    # The untrained encoder (epoch 0) is the baseline at every epoch.
    summaries = {epoch: summarize(
        [r for r in records if r['epoch'] in (0, epoch)], settings.variants,
        settings.readouts, settings.plan) for epoch in settings.eval_epochs}
    orderings = ordering_gaps(summaries, settings.readouts, settings.plan)
    shown = dict(_portable_paths(asdict(settings)), plan=settings.plan.name)
    result = dict(settings=shown,
                  records=records,
                  summary={str(e): s for e, s in summaries.items()},
                  orderings=orderings,
                  pretrain_minutes=sum(
                      r['pretrain_minutes'] for r in records
                      if r['epoch'] == settings.eval_epochs[-1]))
    from .study_report import write_report
    write_report(result, settings)
    return result


def add_settings_args(parser, variants, defaults):
    """Adds the arguments of a study's settings (``StudySettings``' fields
    a command sets) to ``parser``, each default said by ``defaults``
    ({dest: what None means}); every argument defaults to None."""
    def add(flag, dest, help, **kwargs):
        parser.add_argument(flag, dest=dest, **kwargs,
                            help=f'{help}; None: {defaults[dest]}'
                            if dest in defaults else help)
    add('--variants', 'variants', "the variants run, each a study's config",
        nargs='+', choices=list(variants))
    add('--seeds', 'seeds', 'one run per variant and seed', nargs='+',
        type=seed_value)
    add('--epochs', 'epochs', 'pretraining epochs', type=positive_int)
    add('--probe', 'readouts', 'readouts', nargs='+',
        choices=list(READOUT_NAMES))
    add('--train-images', 'train_images', "the first so many training "
        "images pretrain, and train the probes unless --probe-images",
        type=positive_int)
    add('--test-images', 'test_images', 'test images',
        type=positive_int)
    add('--probe-images', 'probe_images', 'labelled training images the '
        'probes train on and the k-NN searches', type=positive_int)
    add('--probe-epochs', 'probe_epochs', 'probe epochs on the cached '
        'features', type=positive_int)
    add('--data-root', 'data_root', "folder of the Fashion-MNIST IDX "
        "files (Debian's dataset-fashion-mnist: "
        '/usr/share/datasets/fashion-mnist)')
    add('--work-dir', 'work_dir', 'folder of the runs (checkpoints, '
        'records) and the report')
    add('--device', 'device', 'cpu (any GPU is hidden): bf16 '
        'pretraining and features where the CPU has bf16 instructions, else '
        'float32; cuda: bf16 pretraining, the features extracted and the '
        'probes trained on the GPU, or exit code 2 if CUDA cannot be used',
        choices=DEVICES)


def parse_args(argv=None):
    """The arguments, with the preset's values where none was given (so
    ``--gpu-study --seeds 0 1 2`` runs three seeds), and the parser.

    Defaults left None here are StudySettings' own (seeds 0 1 2, 90 probe
    epochs, ...), except ``device``, resolved to 'cpu' here.
    """
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=HelpFormatter)
    add_settings_args(parser, VARIANTS, dict(
        variants='the 12 of the table', seeds='0 1 2',
        epochs="the configs' 5", readouts='linear knn',
        train_images="the configs' 6000", test_images='all 10,000',
        probe_images='--train-images', probe_epochs='90',
        data_root="the configs'",
        work_dir="the preset's, else work_dirs/small_scale_study",
        device='cpu'))
    parser.add_argument('--eval-epochs', type=positive_int, nargs='+',
                        help="epochs whose checkpoints are read out, the last"
                        " being the run's length: a learning curve from one "
                        'run per seed; None: the last epoch')
    parser.add_argument('--report-only', action='store_true',
                        help='train and evaluate nothing: write the report '
                        'of the runs already recorded in --work-dir (a '
                        'study under way)')
    add_debug_arg(parser)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--quick', action='store_true',
                      help='3 variants, 1 seed, 1 epoch on 256 images: what '
                      'the test suite runs')
    mode.add_argument('--curve', action='store_true',
                      help='the training-length study: ' + ', '.join(
                          f'{k}={v}' for k, v in CURVE.items()))
    mode.add_argument('--gpu-study', action='store_true',
                      help='the curve on all images, for one H100 in about '
                      '15 minutes (an estimate): ' + ', '.join(
                          f'{k}={v}' for k, v in GPU_STUDY.items()))
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else CURVE if args.curve else \
        GPU_STUDY if args.gpu_study else {}
    for key, value in preset.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.device = args.device or 'cpu'
    return args, parser


def main(argv=None):
    args, parser = parse_args(argv)
    # Before anything asks torch for GPUs (importing mmengine does). A
    # report trains nothing, so it needs no GPU: --report-only hides them
    # and still reports the runs recorded for --device.
    try:
        use_device('cpu' if args.report_only else args.device)
    except NoUsableCuda as e:
        parser.exit(2, f'{parser.prog}: error: argument --device: {e}\n')
    import randsac_mm.registration  # noqa: F401  (registers)

    from .study_report import markdown
    # A setting out of range: StudySettings' ValueError, one line (run_tool).
    settings = StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA,
        **{k: getattr(args, k) for k in (
            'variants', 'seeds', 'epochs', 'eval_epochs', 'readouts',
            'train_images', 'test_images', 'probe_images', 'probe_epochs',
            'data_root', 'work_dir', 'device', 'quick', 'report_only')
            if getattr(args, k) is not None})
    result = run_study(settings, log=lambda line: print(line, flush=True))
    print('\n' + markdown(result))
    outputs = 'study.json, study.md, study.png' + (
        ', curve.png' if len(settings.eval_epochs) > 1 else '')
    print(f'wrote {settings.work_dir}/{{{outputs}}} '
          f"({result['pretrain_minutes']:.0f} min of pretraining on "
          f'{settings.device})')


if __name__ == '__main__':
    run_tool(main, prog=PROG)
