"""One run of the small-scale study: a variant pretrained with one seed,
its checkpoints read out; each step reused from its record or resumed
(``experiments.records``)."""
import contextlib
import math
import os
import os.path as osp
import time

from randsac_mm.apis import build_model
from randsac_mm.cli.errors import UserError
from randsac_mm.engine.schedule_length import set_epochs

from ..records import (
    loss_difference,
    read_record,
    recorded_step,
    same_settings,
    settings_stamp,
    step_minutes,
    train_resuming,
    write_record,
)
from ..scalars import logged_scalars
from ..training_clock import trained_minutes


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
    """The folder of one run: under the work dir of the study whose runs
    of ``name`` are reused (``settings.reused_runs``), else under this
    study's."""
    work_dir = settings.reused_runs.get(name, settings.work_dir)
    return osp.join(work_dir, 'runs', f'{name}_seed{seed}')


def run_folders(settings):
    """(variant, seed) of each run folder (:func:`run_dir`) of the plan's
    variants in the work dir, sorted by folder name."""
    runs = []
    for entry in sorted(os.listdir(osp.join(settings.work_dir, 'runs'))):
        name, mark, seed = entry.rpartition('_seed')
        if mark and seed.isdigit() and name in settings.plan.variants:
            runs.append((name, int(seed)))
    return runs


def pretrain(name, seed, settings, need_checkpoints=True):
    """Pretrains one variant with one seed, keeping a checkpoint at every
    epoch of ``settings.eval_epochs``: a recorded step
    (``records.recorded_step``: reused, resumed, or, when a readout still
    needs the checkpoints and they are gone, made again and compared by
    its losses).

    Returns:
        dict: ``settings``, ``checkpoints`` ({str(epoch): file name in the
        run's folder}), ``first_loss``, ``final_loss``, ``epoch_losses``
        (the last logged loss of each epoch), ``resumed_from``,
        ``minutes`` (of the start that finished it), ``train_minutes``
        (of training, over every start: ``experiments.training_clock``),
        and the ``machine`` and ``commit`` it ran on (records made before
        these were recorded lack them).
    """
    folder = run_dir(name, seed, settings)
    wanted = dict(variant=name, config=settings.plan.variants[name][0],
                  seed=seed, epochs=settings.epochs,
                  train_images=settings.train_images,
                  data_root=_recorded_root(settings),
                  **_added_settings(settings))
    checkpoints = {str(e): checkpoint_name(e) for e in settings.eval_epochs}

    def make():
        cfg = variant_config(name, settings)
        cfg.randomness = dict(seed=seed)
        cfg.experiment_name = f'{name}_seed{seed}'
        set_checkpoints(cfg, settings.eval_epochs)
        # Its folders predate settings.json: one without is this run's.
        runner, resumed = train_resuming(cfg, folder, wanted,
                                         adopt_unnamed=True)
        losses = logged_scalars(folder)
        return dict(checkpoints=checkpoints,
                    train_minutes=trained_minutes(runner),
                    first_loss=losses[0]['value'] if losses else None,
                    final_loss=losses[-1]['value'] if losses else None,
                    epoch_losses={str(r['epoch']): r['value']
                                  for r in losses},
                    resumed_from=resumed and osp.basename(resumed))
    return recorded_step(
        osp.join(folder, 'pretrain.json'), wanted, '--work-dir', make,
        checkpoints=[osp.join(folder, c) for c in checkpoints.values()]
        if need_checkpoints else (),
        difference=lambda recorded, made: loss_difference(
            recorded['epoch_losses'], made['epoch_losses']))


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
                  **_added_settings(settings, 'probe_images', 'probe_seeds'))
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
    """What the records gained after the first studies were committed: the
    settings ``names`` (e.g. 'probe_images') when not None, and how the
    step ran (``records.settings_stamp``), so that the committed records
    (docs/benchmarks/) still match a study of the same settings."""
    added = {name: getattr(settings, name) for name in names
             if getattr(settings, name) is not None}
    return dict(added, **settings_stamp(settings.device, settings.compile))


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
                probe_seeds=settings.probe_seeds,
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


def run_is_recorded(name, seed, settings):
    """Whether every readout of the run is recorded (:func:`run_one` then
    reuses them all): the untrained encoder's at epoch 0, a pretraining's
    at each of ``settings.eval_epochs``."""
    if settings.plan.variants[name][0] is None:
        return is_recorded(name, seed, 0, settings)
    return all(
        is_recorded(name, seed, epoch, settings, checkpoint_name(epoch))
        for epoch in settings.eval_epochs)


def run_one(name, seed, settings, loaders):
    """Pretrains one variant with one seed and reads it out at every epoch
    of ``settings.eval_epochs`` (the untrained encoder: epoch 0 only).
    ``loaders``: see :func:`evaluate`.

    Returns:
        list[dict]: one record per read-out epoch.
    """
    recorded = run_is_recorded(name, seed, settings)
    if name in settings.reused_runs and not (recorded or
                                             settings.report_only):
        # Another study's folder: this one neither trains nor reads out
        # there, so that folder's records stay that study's.
        raise UserError(
            f'{name} seed {seed}: its runs are reused from '
            f'{settings.reused_runs[name]}, which does not record this run '
            'with these settings; run it in that study first')
    if settings.plan.variants[name][0] is None:
        if settings.report_only and not recorded:
            return []
        result = evaluate(name, seed, 0, settings, loaders)
        return [dict(variant=name, seed=seed, epoch=0, loss=None,
                     pretrain_minutes=0.0,
                     **{r: result[r] for r in settings.readouts})]
    # Checkpoints are needed only for readouts not yet recorded (a study's
    # records may outlive its checkpoints, e.g. when kept in the repo).
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
            pretrain_minutes=step_minutes(trained),
            **{r: result[r] for r in settings.readouts}))
    return records


