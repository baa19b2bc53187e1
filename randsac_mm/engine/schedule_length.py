"""A run's length changed with its schedule: the studies and the demo
shorten or lengthen a config's run, and ``tools/train.py --cfg-options
train_cfg.max_epochs=N`` fits the learning-rate schedule to N, so that a
cosine decay written for 10 epochs ends with a run of 40 rather than
spending 30 at its minimum.

Pure config edits (mmengine ``Config``): nothing is built or imported."""

__all__ = ['fit_schedulers', 'set_epochs', 'set_iterations']


def set_epochs(cfg, epochs):
    """Shortens or lengthens an epoch-based schedule to ``epochs``.

    The warmup (``LinearLR``) keeps its length, capped at a tenth of the run
    (at least one epoch); every other scheduler runs from the warmup's end
    (from the start in a one-epoch run) to the last epoch, a step
    schedule's milestones at the same fractions of it; validation and
    checkpointing happen at the end.
    """
    cfg.train_cfg.max_epochs = epochs
    _fit_schedule(cfg, epochs, by_epoch=True)


def set_iterations(cfg, iters):
    """``set_epochs`` for an iteration-based schedule
    (``IterBasedTrainLoop``, schedulers counted in iterations)."""
    cfg.train_cfg.max_iters = iters
    _fit_schedule(cfg, iters, by_epoch=False)


def _fit_schedule(cfg, length, by_epoch):
    """The schedulers, validation and checkpoint of a run of ``length``
    epochs (``by_epoch``) or iterations."""
    if 'val_interval' in cfg.train_cfg:
        cfg.train_cfg.val_interval = length
    fit_schedulers(cfg, length, by_epoch)
    cfg.default_hooks.checkpoint.interval = length


def fit_schedulers(cfg, length, by_epoch):
    """The learning-rate schedulers of a run of ``length`` epochs
    (``by_epoch``) or iterations. A scheduler counted in the other unit (an
    epoch-based run's warmup of N iterations) is kept as it is; a step
    schedule's milestones (``MultiStepLR``, counted from its ``begin``)
    move to the same fractions of its new span, rounded down."""
    warmup_end = 0
    schedulers = cfg.param_scheduler
    for scheduler in [schedulers] if isinstance(schedulers, dict) \
            else schedulers:
        if scheduler.get('by_epoch', True) != by_epoch:
            continue
        if scheduler['type'] == 'LinearLR':
            scheduler['end'] = min(scheduler['end'], max(length // 10, 1))
            warmup_end = scheduler['end']
            continue
        old_begin, old_end = scheduler.get('begin', 0), scheduler.get('end')
        # A one-step run has no room after its warmup: overlap them.
        scheduler['begin'] = min(old_begin, warmup_end) \
            if warmup_end < length else 0
        scheduler['end'] = length
        scheduler.pop('T_max', None)  # defaults to end - begin
        if 'milestones' in scheduler and old_end is not None:
            span, old_span = length - scheduler['begin'], old_end - old_begin
            scheduler['milestones'] = [m * span // old_span
                                       for m in scheduler['milestones']]
