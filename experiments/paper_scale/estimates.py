"""The plan's minutes: each run's estimate from the runs recorded, else
the measured speed or the goal, and the plan as a table."""
import json
import os.path as osp
import statistics

from .. import REPO_ROOT
from .carry import is_done, recorded_minutes, restore
from .plan import (
    ASSUMED_READOUT_MINUTES,
    FASHION_MNIST_TRAIN,
    GOAL_IMAGES_PER_S,
    PAPER_SCALE,
    PROG,
    SPEED_FILES,
    plan_runs,
)


def estimates(settings, runs):
    """Estimated (pretraining, readout) minutes of one run, and what each
    rests on: the mean of the runs recorded with these settings, else the
    measured speed (pretraining) or the goal, and
    ``ASSUMED_READOUT_MINUTES`` (readouts)."""
    recorded = [recorded_minutes(name, seed, settings) for name, seed in runs
                if PAPER_SCALE.variants[name][0] is not None and
                is_done(name, seed, settings)]
    pretrained = [p for p, _ in recorded if p is not None]
    read = [r for _, r in recorded if r is not None]
    readout = (statistics.fmean(read), f'mean of {len(read)} recorded') \
        if read else (ASSUMED_READOUT_MINUTES, 'assumed, not measured yet')
    if pretrained:
        return (statistics.fmean(pretrained),
                f'mean of {len(pretrained)} recorded'), readout
    epochs = settings.epochs or settings.config_epochs()
    images = settings.train_images or FASHION_MNIST_TRAIN
    rate, source = measured_speed() or (GOAL_IMAGES_PER_S, (
        f'the goal of {GOAL_IMAGES_PER_S:,} images/s, not measured yet'))
    return (epochs * images / rate / 60, source), readout


def measured_speed():
    """The latest measurement of one run alone on the study's data path
    (``on_device``, the rows' own; one process: ``--processes`` rows share
    the device) in ``SPEED_FILES``, by when its timing began (rows that do
    not say are older, in the files' order): (images/s, what it rests on),
    or None."""
    found = []
    for order, path in enumerate(SPEED_FILES):
        if not osp.exists(path):
            continue
        with open(path) as f:
            speed = json.load(f)
        found += [((row.get('began', 0), order), row['images_per_s'],
                   speed['machine'].get('gpu'), path)
                  for row in speed['rows'] if row['path'] == 'on_device'
                  and row.get('processes', 1) == 1]
    if not found:
        return None
    _, rate, gpu, path = max(found, key=lambda entry: entry[0])
    return rate, (f'{rate:,.0f} images/s measured on {gpu} '
                  f'({osp.relpath(path, REPO_ROOT)})')


def run_minutes(name, pretrain, readout):
    """A run's estimated minutes (the untrained encoder: readouts only)."""
    return (0.0 if PAPER_SCALE.variants[name][0] is None else pretrain) + \
        readout


def plan_markdown(settings, records):
    """The plan: each run in order, done or not, its minutes (recorded or
    estimated), and the minutes left."""
    runs = plan_runs(settings)
    for name, seed in runs:
        restore(name, seed, settings, records)
    (pretrain, pretrain_source), (readout, readout_source) = estimates(
        settings, runs)
    lines = ['# Paper-scale study: the plan', '',
             f'Written by `{PROG} --plan`. The runs go in this order; a '
             'command runs the next one, and more while they fit its '
             '`--budget-minutes` (docs/paper_scale.md).', '',
             f'Estimates on {settings.device}: pretraining about '
             f'{pretrain:.1f} minutes a run ({pretrain_source}); readouts '
             f'about {readout:.1f} minutes ({readout_source}).', '',
             '| # | variant | seed | paper row | status | minutes |',
             '| ---: | --- | ---: | --- | --- | ---: |']
    left = 0.0
    to_run = 0
    for i, (name, seed) in enumerate(runs, start=1):
        if is_done(name, seed, settings):
            parts = recorded_minutes(name, seed, settings)
            minutes = '-' if None in parts else f'{sum(parts):.1f}'
            status = 'done'
        else:
            estimate = run_minutes(name, pretrain, readout)
            minutes = f'{estimate:.1f}'
            status, left, to_run = 'to run', left + estimate, to_run + 1
        lines.append(f'| {i} | {name} | {seed} | '
                     f'{PAPER_SCALE.variants[name][1]} | {status} | '
                     f'{minutes} |')
    lines += ['', f'{to_run} runs to go, about {left:.0f} minutes.',
              '', 'Orderings, the key ones first:', '']
    lines += [f'{i}. {worse} < {better}: {paper}' for i, (worse, better, paper)
              in enumerate(PAPER_SCALE.orderings, start=1)]
    return '\n'.join(lines) + '\n'


