"""set_epochs and set_iterations: a config's schedule at another length,
its warmup kept (capped at a tenth), the decay ending with the run."""
import os.path as osp

from mmengine.config import Config

from randsac_mm.engine.schedule_length import set_epochs, set_iterations

from ..conftest import REPO_ROOT

SEGMENTATION = osp.join(
    REPO_ROOT, 'configs', 'segmentation',
    'upernet_randsac-vit-mini-p4_1xb8-4k_digit-scenes-64x64.py')
DEMO = osp.join(REPO_ROOT, 'configs', 'demo',
                'randsac_vit-mini-p4_square-16to4_mnist.py')


def _spans(cfg):
    return [(s['type'], s.get('begin', 0), s['end'])
            for s in cfg.param_scheduler]


def test_iterations_keep_the_warmup_and_end_the_decay_with_the_run():
    cfg = Config.fromfile(SEGMENTATION)
    assert _spans(cfg) == [('LinearLR', 0, 50), ('PolyLR', 50, 4000)]
    set_iterations(cfg, 1000)
    assert cfg.train_cfg.max_iters == cfg.train_cfg.val_interval == 1000
    assert cfg.default_hooks.checkpoint.interval == 1000
    assert _spans(cfg) == [('LinearLR', 0, 50), ('PolyLR', 50, 1000)]
    set_iterations(cfg, 20)  # the warmup capped at a tenth of the run
    assert _spans(cfg) == [('LinearLR', 0, 2), ('PolyLR', 2, 20)]


def test_epochs_do_the_same_in_epochs():
    cfg = Config.fromfile(DEMO)
    set_epochs(cfg, 1)  # one epoch: no room after the warmup
    assert cfg.train_cfg.max_epochs == 1
    assert [(t, b, e) for t, b, e in _spans(cfg)] == [
        ('LinearLR', 0, 1), (cfg.param_scheduler[1]['type'], 0, 1)]


def test_a_warmup_in_iterations_stays_in_an_epoch_based_run():
    cfg = Config.fromfile(osp.join(
        REPO_ROOT, 'configs', 'detection',
        'mask-rcnn_randsac-vit-mini-p4_fpn_1xb8-6e_digit-scenes-64x64.py'))
    set_epochs(cfg, 3)
    warmup, steps = cfg.param_scheduler
    assert (warmup.by_epoch, warmup.end) == (False, 100)  # iterations
    assert (steps.begin, steps.end) == (0, 3)


def test_step_milestones_move_to_the_same_fractions_of_the_run():
    path = osp.join(REPO_ROOT, 'configs', 'detection',
                    'mask-rcnn_randsac-vit-b_fpn-36e_coco.py')
    cfg = Config.fromfile(path)
    assert cfg.param_scheduler[1].milestones == [27, 33]  # of 36 epochs
    set_epochs(cfg, 12)
    assert cfg.param_scheduler[1].milestones == [9, 11]
    cfg = Config.fromfile(path)
    set_epochs(cfg, 6)  # rounded down
    assert cfg.param_scheduler[1].milestones == [4, 5]


def _run_config(config, options):
    """``config`` as tools/train.py reads it with ``--cfg-options``."""
    from randsac_mm.cli.config_file import apply_cfg_options
    cfg = Config.fromfile(config)
    apply_cfg_options(cfg, options)
    return cfg


def test_a_longer_run_on_the_command_line_fits_its_schedule(logged):
    """mmpretrain's way to a longer run, ``--cfg-options
    train_cfg.max_epochs=40``, stretches the decay to the new end (the
    config's own would stop decaying at its epoch 10) and says so."""
    warmup, decay = _spans(Config.fromfile(DEMO))
    assert warmup[0] == 'LinearLR' and decay[1:] == (warmup[2], 10)
    cfg = _run_config(DEMO, {'train_cfg.max_epochs': 40})
    assert cfg.train_cfg.max_epochs == 40
    assert _spans(cfg) == [warmup, (decay[0], warmup[2], 40)]
    # Validation and checkpoints stay the user's (a study's run sets them
    # to its end; set_epochs above).
    assert cfg.default_hooks.checkpoint.interval == \
        Config.fromfile(DEMO).default_hooks.checkpoint.interval
    assert 'train_cfg.max_epochs=40 (the config: 10): the learning-rate ' \
        'schedule fitted to 40 epochs' in '\n'.join(logged)


def test_under_ddp_only_rank_0_says_it(logged, monkeypatch):
    """Before, each process of tools/dist_train.sh printed the line."""
    monkeypatch.setenv('RANK', '1')
    cfg = _run_config(DEMO, {'train_cfg.max_epochs': 40})
    assert _spans(cfg)[1][2] == 40  # fitted on every rank
    assert 'fitted' not in '\n'.join(logged)


def test_iterations_on_the_command_line_do_the_same():
    cfg = _run_config(SEGMENTATION, {'train_cfg.max_iters': 8000})
    assert _spans(cfg) == [('LinearLR', 0, 50), ('PolyLR', 50, 8000)]


def test_a_schedule_given_on_the_command_line_is_left_as_given(logged):
    cfg = _run_config(DEMO, {'train_cfg.max_epochs': 40,
                             'param_scheduler.1.end': 20})
    assert _spans(cfg)[1][2] == 20
    same = _run_config(DEMO, {'train_cfg.max_epochs': 10})
    assert _spans(same) == _spans(Config.fromfile(DEMO))
    assert 'fitted' not in '\n'.join(logged)


def _training_configs():
    from glob import glob
    return sorted(p for p in glob(osp.join(REPO_ROOT, 'configs', '**',
                                           '*.py'), recursive=True)
                  if '_base_' not in p)


def test_every_training_config_keeps_its_shape_at_another_length():
    """Every config with a length and a learning-rate schedule, asked on
    the command line for three times its length and for a third of it:
    the warmup keeps its length (capped at a tenth), every other scheduler
    of the run's unit ends with the run, as each ended with the config's
    run (the rule the fitting relies on), and a scheduler of the other unit
    is kept as it is."""
    walked = 0
    for path in _training_configs():
        cfg = Config.fromfile(path, import_custom_modules=False)
        train_cfg, schedulers = cfg.get('train_cfg') or {}, \
            cfg.get('param_scheduler')
        key = next((k for k in ('max_epochs', 'max_iters')
                    if train_cfg.get(k)), None)
        if key is None or not schedulers:
            continue
        schedulers = [schedulers] if isinstance(schedulers, dict) \
            else schedulers
        by_epoch, old = key == 'max_epochs', train_cfg[key]
        ours = [s for s in schedulers if s.get('by_epoch', True) == by_epoch]
        assert all(s['end'] == old for s in ours if s['type'] != 'LinearLR'), \
            f'{path}: a decay that does not end with the run'
        for new in (3 * old, max(old // 3, 1)):
            run = _run_config(path, {f'train_cfg.{key}': new})
            fitted = run.param_scheduler
            fitted = [fitted] if isinstance(fitted, dict) else fitted
            for before, after in zip(schedulers, fitted):
                if before.get('by_epoch', True) != by_epoch:
                    assert after == before, path
                elif before['type'] == 'LinearLR':
                    assert after['end'] == min(before['end'],
                                               max(new // 10, 1)), path
                else:
                    assert after['end'] == new, path
        walked += 1
    assert walked >= 100  # (the paper's tables, the demo, the transfers)
