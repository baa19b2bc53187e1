"""The small dense transfer study (experiments.transfer_small): its quick
run end to end through mmseg's and mmdet's Runner loops, and its
bookkeeping (records reused, other settings refused, the table)."""
import json
import os
import os.path as osp
from types import SimpleNamespace

import pytest
from PIL import Image

from experiments.records import read_record
from experiments.transfer_small import cli, runs
from experiments.transfer_small import steps as study
from randsac_mm.cli.errors import UserError

from ..conftest import REPO_ROOT, run_tool, save_moved_checkpoint
from ..tool_runs import run_command

STUDY = ['-m', 'experiments.transfer_small']


@pytest.fixture(scope='module')
def quick(tmp_path_factory):
    work = tmp_path_factory.mktemp('transfer_small')
    # In a process of its own: mmseg's and mmdet's Runners leave their
    # default scope behind, which other tests in this worker would inherit.
    out = run_tool([*STUDY, '--quick', '--work-dir', work], timeout=900,
                   own_process=True)
    return work, out


@pytest.mark.heavy(minutes=3)
def test_quick_study_writes_records_table_and_pictures(quick):
    work, out = quick
    records = work / 'records'
    table = json.loads((work / 'records.json').read_text())
    inits = cli.QUICK['inits']
    expected = [(task, init, 0, metric)
                for task in cli.QUICK['tasks']
                for init in inits
                for metric in runs.TASKS[task]['metrics']]
    assert [(r['task'], r['init'], r['seed'], r['metric'])
            for r in table['rows']] == expected
    for row in table['rows']:
        assert 0 <= row['value'] <= 100
    run = json.loads(
        (records / 'segmentation_randsac-square_seed0.json').read_text())
    assert run['settings']['length'] == dict(iters=4)
    assert run['settings']['pretraining'] == dict(
        name='randsac-square', epochs=1, digits=64)
    steps = [step for step, _ in run['losses']]
    assert steps and steps == sorted(steps) and steps[-1] <= 4
    random = json.loads(
        (records / 'detection_random_seed0.json').read_text())
    assert random['settings']['pretraining'] is None
    assert set(random['metrics']) == {'bbox_mAP', 'segm_mAP'}
    pretraining = json.loads(
        (records / 'pretrain_randsac-square.json').read_text())
    assert pretraining['settings']['epochs'] == 1
    # Two initialisations over random: each has its gain; random has none.
    gains = {(e['task'], e['metric'], e['init']): e.get('gain_over_random')
             for e in table['summary']}
    # One seed: a mean without a spread.
    assert {e['std'] for e in table['summary']} == {None}
    assert gains[('segmentation', 'mIoU', 'random')] is None
    assert gains[('segmentation', 'mIoU', 'randsac-square')] == \
        pytest.approx(run['metrics']['mIoU'] - json.loads(
            (records / 'segmentation_random_seed0.json').read_text()
        )['metrics']['mIoU'])
    # The frozen readout of each encoder: tokens of single digits (alone
    # and on the scenes' canvas) and of scenes, percentages over held-out
    # tokens; the canvas holds the same ink tokens as the digits alone.
    assert set(table['token_identity']) == {'random', 'randsac-square'}
    for accuracy in table['token_identity'].values():
        for kind in ('digits', 'canvas', 'scenes'):
            assert 0 < accuracy[kind] < 100
        assert accuracy['digit_tokens'] > 1000
        assert accuracy['canvas_tokens'] == accuracy['digit_tokens']
        assert accuracy['scene_tokens'] > 100
    # Position embeddings made anew at the scenes' grid: pretrained only.
    assert 0 < table['token_identity']['randsac-square'][
        'scenes_regenerated'] < 100
    assert 'canvas_regenerated' not in table['token_identity']['random']
    assert 'token identity, frozen (%): random: digits' in out.stdout
    assert set(table['minutes']) == {'pretraining', 'readout', 'downstream'}
    # Each training's time over its starts (experiments.training_clock):
    # inside its step's, which also builds and evaluates.
    runs_made = [json.loads(p.read_text())
                 for p in records.glob('*_seed0.json')]
    for made in runs_made + [pretraining]:
        assert 0 < made['train_minutes'] < made['minutes']
    assert table['minutes']['downstream'] == pytest.approx(sum(
        made['train_minutes'] for made in runs_made))
    assert table['minutes']['pretraining'] == pytest.approx(
        pretraining['train_minutes'])
    for task in ('segmentation', 'detection'):
        width, height = Image.open(records / f'{task}.png').size
        assert width > 400 and height > 400
    assert '| segmentation | mIoU | randsac-square | 1 |' in out.stdout


@pytest.mark.heavy
def test_a_second_run_reuses_every_record(quick):
    work, _ = quick
    before = (work / 'records.json').read_text()
    pictures = [work / 'records' / f'{task}.png'
                for task in cli.QUICK['tasks']]
    for picture in pictures:
        picture.unlink()
    again = run_tool([*STUDY, '--quick', '--work-dir', work,
                      '--report-only'], timeout=120)
    assert 'Iter(train)' not in again.stdout + again.stderr
    # Each reused record is announced, not shown as a fresh result.
    for step in ('[pretrain] randsac-square', '[readout] random',
                 '[segmentation] randsac-square seed 0',
                 '[detection] random seed 0'):
        assert f'{step}: recorded in ' in again.stdout, step
    assert json.loads((work / 'records.json').read_text())['rows'] == \
        json.loads(before)['rows']
    # Named only when another study's pretrainings are used.
    assert 'pretrained_from' not in json.loads(before)['settings']
    # The report draws the pictures again from the runs' checkpoints.
    for picture in pictures:
        assert f'wrote {picture}' in again.stdout
        assert Image.open(picture).size[0] > 400


@pytest.mark.heavy
def test_records_of_other_settings_stop_the_study(quick):
    work, _ = quick
    out = run_command([*STUDY, '--quick', '--work-dir', work,
                       '--segmentation-iters', '5', '--tasks',
                       'segmentation'])
    assert out.returncode == 2
    [line] = out.stderr.strip().splitlines()
    assert 'segmentation_randsac-square_seed0.json records other ' \
        'settings' in line
    assert 'Iter(train)' not in out.stdout


def _summary(*triples):
    """The study summary of segmentation mIoU rows (init, seed, value),
    keyed by initialisation."""
    rows = [dict(task='segmentation', metric='mIoU', init=init, seed=seed,
                 value=value) for init, seed, value in triples]
    settings = runs.TransferSettings(
        tasks=('segmentation', ), inits=tuple({r['init']: 0 for r in rows}))
    return {e['init']: e for e in study.summary(rows, settings)}


def test_summary_spreads_over_seeds_and_pairs_gains_by_seed():
    entries = _summary(('random', 0, 40.0), ('random', 1, 44.0),
                       ('mae', 0, 38.0), ('mae', 1, 45.0),
                       ('randsac-square', 0, 30.0))
    assert entries['mae']['std'] == pytest.approx(4.9497, abs=1e-4)
    assert entries['mae']['gain_over_random'] == pytest.approx(-0.5)
    assert entries['randsac-square']['std'] is None  # one seed
    assert entries['randsac-square']['gain_over_random'] == -10.0  # seed 0
    assert 'gain_over_random' not in entries['random']


def test_summary_pairs_a_gain_by_seed_not_by_position():
    # MAE recorded at seeds 1 and 2 only: paired with random init's 1 and 2.
    entries = _summary(('random', 0, 40.0), ('random', 1, 44.0),
                       ('random', 2, 50.0), ('mae', 1, 45.0), ('mae', 2, 52.0))
    assert entries['mae']['gain_over_random'] == pytest.approx(1.5)


def test_unknown_initialisation_is_refused_with_the_choices():
    with pytest.raises(SystemExit):
        cli.parse_args(['--inits', 'imagenet'])
    with pytest.raises(UserError, match='--tasks: nope'):
        runs.TransferSettings(tasks=('nope', ))


def test_pretraining_digits_beyond_the_split_are_refused():
    from mmengine.config import Config
    dataset = Config.fromfile(
        runs.PRETRAININGS['mae']).train_dataloader.dataset
    assert study.check_digits(dataset, 4000) == 4000
    with pytest.raises(UserError,
                       match='pretrain_digits: 4001 is more than the 4000'):
        study.check_digits(dataset, 4001)


@pytest.mark.parametrize('downstream_scope', ['mmdet', 'mmseg'])
def test_a_pretraining_after_a_downstream_run_finds_its_digits(
        downstream_scope):
    # A study's process runs random init's Mask R-CNN or UperNet before
    # the pretrainings: their runner leaves mmdet's or mmseg's scope
    # current, where MNIST5k is not registered.
    import mmdet.registry  # noqa: F401  (registers the scopes)
    import mmseg.registry  # noqa: F401
    from mmengine.registry import DefaultScope
    settings = runs.TransferSettings()
    with DefaultScope.overwrite_default_scope(downstream_scope):
        cfg = study.pretrain_config('randsac-square', settings)
    assert cfg.train_dataloader.dataset.indices == settings.pretrain_digits


def test_one_runs_config_changes_nothing_in_the_next():
    # The order of a seed: random init (no checkpoint), then the frozen
    # encoder, then the next seed's first pretraining; and the readout's
    # changes to the encoder (img_size, scales) in between.
    settings = runs.TransferSettings()
    cfg = runs.run_config('segmentation', 'random', 0, None,
                                    settings)
    assert cfg.model.backbone.init_cfg is None
    cfg.model.backbone.scales = (1, 1, 1, 1)
    frozen = runs.run_config(
        'segmentation', 'randsac-square-frozen', 0, 'a.pth', settings)
    assert frozen.model.backbone.init_cfg.checkpoint == 'a.pth'
    assert frozen.model.backbone.frozen_stages == 'all'
    assert frozen.model.backbone.scales == (2, 1, 0.5, 0.25)
    square = runs.run_config('segmentation', 'randsac-square', 1,
                                       'b.pth', settings)
    assert square.model.backbone.init_cfg.checkpoint == 'b.pth'
    assert square.model.backbone.get('frozen_stages') != 'all'
    assert square.randomness.seed == 1 and frozen.randomness.seed == 0


def test_cfg_options_reach_each_run_and_its_record_but_not_the_length():
    values = cli.parse_args([
        '--cfg-options', 'optim_wrapper.paramwise_cfg.layer_decay_rate=1.0',
        'train_cfg.max_iters=7', 'model.backbone.out_indices=(1,2,3,5)',
        '--segmentation-iters', '40'])
    settings = runs.TransferSettings(**values)
    # Held as a record holds them (JSON: a tuple reads back as a list).
    assert settings.cfg_options['model.backbone.out_indices'] == [1, 2, 3, 5]
    cfg = runs.run_config('segmentation', 'random', 0, None,
                                    settings)
    assert cfg.optim_wrapper.paramwise_cfg.layer_decay_rate == 1.0
    assert cfg.train_cfg.max_iters == 40  # the study's flag wins
    assert settings.recorded(dict(a=1)) == dict(
        a=1, cfg_options=settings.cfg_options)
    # Without options a record's settings are as before (old records hold).
    assert runs.TransferSettings().recorded(dict(a=1)) == dict(a=1)


def test_a_bf16_run_is_never_taken_for_a_float32_record(monkeypatch,
                                                        tmp_path):
    """Records name a CPU's precision where it is not float32, so a study
    in bf16 refuses the float32 records (and the reverse), before any
    work; float32 records keep the settings they had."""
    from randsac_mm.precision import CPU_PRECISION_ENV
    settings = runs.TransferSettings()
    monkeypatch.setenv(CPU_PRECISION_ENV, 'bfloat16')
    wanted = settings.recorded(dict(a=1))
    assert wanted == dict(a=1, precision='bfloat16')
    path = tmp_path / 'run.json'
    path.write_text(json.dumps(dict(settings=dict(a=1))))  # float32's
    with pytest.raises(UserError, match=r"run\.json records other settings "
                       r"\(precision: None there, 'bfloat16' here\): give "
                       r'another --records \(that file is kept\), or run in '
                       r'its precision: RANDSAC_CPU_PRECISION=float32$'):
        read_record(str(path), wanted, '--records')
    monkeypatch.setenv(CPU_PRECISION_ENV, 'float32')
    assert read_record(str(path), settings.recorded(dict(a=1)),
                       '--records')['settings'] == dict(a=1)


def test_the_quick_run_keeps_out_of_the_studys_folders():
    """--quick alone trains, makes scenes and records in a folder of its
    own, never in the study's work dir or docs/benchmarks."""
    values = cli.parse_args(['--quick'])
    assert values['work_dir'] == 'work_dirs/transfer_small_quick'
    assert values['records'] == osp.join('work_dirs/transfer_small_quick',
                                         'records')
    assert runs.TransferSettings(**values).work_dir != \
        runs.TransferSettings().work_dir
    chosen = cli.parse_args(['--quick', '--work-dir', 'elsewhere'])
    assert (chosen['work_dir'], chosen['records']) == (
        'elsewhere', osp.join('elsewhere', 'records'))


def test_an_unknown_cfg_option_is_one_line_naming_it_and_makes_nothing(
        tmp_path):
    work = tmp_path / 'study'
    out = run_command([*STUDY, '--work-dir', work, '--records',
                       tmp_path / 'records', '--tasks', 'detection',
                       '--cfg-options', 'model.backbone.nonsense=1'])
    assert out.returncode == 2, out.stdout + out.stderr
    line, = out.stderr.strip().splitlines()
    assert 'transfer_small: error: config: model.backbone.nonsense ' \
        '(RandSACViTPyramid)' in line, line
    assert not work.exists() and not (tmp_path / 'records').exists()


def test_a_run_checkpoints_each_quarter_keeping_the_latest():
    settings = runs.TransferSettings(segmentation_iters=4000,
                                               detection_epochs=6)
    segmentation = runs.run_config('segmentation', 'random', 0,
                                             None, settings)
    detection = runs.run_config('detection', 'random', 0, None,
                                          settings)
    hooks = segmentation.default_hooks.checkpoint, \
        detection.default_hooks.checkpoint
    assert [(h.interval, h.max_keep_ckpts) for h in hooks] == [(1000, 1),
                                                               (1, 1)]
    assert segmentation.train_cfg.max_iters == 4000
    assert detection.train_cfg.max_epochs == 6


@pytest.mark.parametrize('epochs, interval', [(160, 40), (10, 2), (3, 1)])
def test_a_pretraining_checkpoints_each_quarter_keeping_the_latest(
        epochs, interval):
    # A 160-epoch pretraining is half an hour on a CPU: one stopped at the
    # end of a sitting resumes from its last quarter.
    settings = runs.TransferSettings(pretrain_epochs=epochs)
    cfg = study.pretrain_config('mae', settings)
    hook = cfg.default_hooks.checkpoint
    assert (hook.interval, hook.max_keep_ckpts) == (interval, 1)
    assert cfg.train_cfg.max_epochs == epochs
    assert cfg.randomness.seed == 0
    assert cfg.train_dataloader.dataset.indices == settings.pretrain_digits


def test_each_task_runs_its_initialisations_seed_major():
    settings = runs.TransferSettings(seeds=(0, 1))
    order = settings.runs_of('detection')
    assert order[:4] == [(init, 0) for init in
                         runs.TASKS['detection']['inits']]
    assert ('randsac-square-frozen', 0) not in order
    assert ('randsac-square-frozen', 1) in settings.runs_of('segmentation')


def test_the_readouts_canvas_holds_each_digit_token_for_token():
    """The readout's ``canvas`` images: each digit whole, at an offset on
    the token grid, the rest empty; offsets vary over the images."""
    import numpy as np

    from experiments.transfer_small.readout import _on_canvas
    rng = np.random.default_rng(1)
    digits = rng.integers(1, 256, (50, 32, 32)).astype(np.uint8)
    canvas = _on_canvas(digits, 64, 4, seed=3)
    assert canvas.shape == (50, 64, 64) and canvas.dtype == np.uint8
    offsets = set()
    for digit, image in zip(digits, canvas):
        ys, xs = np.nonzero(image)
        y, x = ys.min(), xs.min()
        assert y % 4 == 0 and x % 4 == 0
        assert np.array_equal(image[y:y + 32, x:x + 32], digit)
        assert np.count_nonzero(image) == digit.size
        offsets.add((y, x))
    assert len(offsets) > 10
    assert np.array_equal(canvas, _on_canvas(digits, 64, 4, seed=3))


@pytest.fixture(scope='module')
def mae_checkpoint(tmp_path_factory):
    """A checkpoint of the study's MAE pretraining model (class token,
    8x8 tokens), its weights moved off their initial values."""
    import torch
    from mmengine.config import Config

    import randsac_mm.registration  # noqa: F401
    from randsac_mm.run.builds import build_model_for_checks
    torch.manual_seed(0)
    model = build_model_for_checks(Config.fromfile(
        osp.join(REPO_ROOT, runs.PRETRAININGS['mae'])))
    assert model.backbone.cls_token is not None
    return save_moved_checkpoint(
        model, tmp_path_factory.mktemp('mae') / 'epoch_1.pth')


def _segmentation_model(checkpoint):
    from mmengine.config import Config
    from mmengine.registry import DefaultScope
    from mmseg.registry import MODELS

    import randsac_mm.downstream  # noqa: F401
    cfg = Config.fromfile(osp.join(
        REPO_ROOT, runs.TASKS['segmentation']['config']))
    cfg.model.backbone.init_cfg.checkpoint = checkpoint
    with DefaultScope.overwrite_default_scope('mmseg'):
        model = MODELS.build(cfg.model)
        model.init_weights()
    return model


def test_an_mae_checkpoint_reaches_the_pyramid_through_the_converter(
        mae_checkpoint):
    import torch
    from mmpretrain.models.utils import resize_pos_embed
    encoder = study.downstream_encoder(mae_checkpoint, 64)
    assert encoder.endswith('epoch_1_encoder-64px.pth')
    model = _segmentation_model(encoder)
    source = torch.load(mae_checkpoint)['state_dict']
    loaded = model.backbone.state_dict()
    keys = [k for k in loaded if not k.startswith('fpn')]
    assert 'layers.5.ffn.layers.1.weight' in keys
    for key in keys:
        expected = source['backbone.' + key]
        if key == 'pos_embed':  # its class token's entry dropped, 8 -> 16
            expected = resize_pos_embed(expected[:, 1:], (8, 8), (16, 16),
                                        'bicubic', 0)
        torch.testing.assert_close(loaded[key], expected, rtol=0, atol=0,
                                   msg=key)
    # Converted once, stamped with its checkpoint's time: a second call
    # reuses the file (written anew, it would be another inode) ...
    made = os.stat(mae_checkpoint).st_mtime_ns
    first = os.stat(encoder)
    assert first.st_mtime_ns == made
    assert study.downstream_encoder(mae_checkpoint, 64) == encoder
    assert os.stat(encoder).st_ino == first.st_ino
    # ... until its pretraining is made again: another time, later or
    # earlier (another machine's clock).
    for shift in (10**10, -10**10):
        before = os.stat(encoder).st_ino
        os.utime(mae_checkpoint, ns=(made + shift, made + shift))
        assert study.downstream_encoder(mae_checkpoint, 64) == encoder
        again = os.stat(encoder)
        assert again.st_ino != before
        assert again.st_mtime_ns == made + shift
    os.utime(mae_checkpoint, ns=(made, made))


def test_an_unconverted_mae_checkpoint_is_refused_naming_the_converter(
        mae_checkpoint):
    from randsac_mm.checkpoint import PretrainedCheckpointError
    with pytest.raises(PretrainedCheckpointError) as error:
        _segmentation_model(mae_checkpoint)
    message = str(error.value)
    assert '(cls_token)' in message
    assert 'convert it first with tools/model_converters/' \
        'randsac2downstream.py' in message


def test_a_table_names_the_pretraining_length_only_where_one_is_used():
    random = study.table_settings(runs.TransferSettings(inits=('random', )))
    assert 'pretrain_epochs' not in random and 'pretrain_digits' not in random
    assert random['seeds'] == (0, 1) and 'report_only' not in random
    both = study.table_settings(runs.TransferSettings(
        inits=('random', 'mae'), pretrain_epochs=40))
    assert (both['pretrain_epochs'], both['pretrain_digits']) == (40, 4000)


def test_a_table_names_the_seeds_its_rows_hold_not_those_asked():
    # A report asked for seeds 0-4 of a study recorded at seeds 0 and 2.
    asked = runs.TransferSettings(inits=('random', ), seeds=(0, 1, 2, 3, 4),
                                  report_only=True)
    rows = [dict(task='segmentation', metric='mIoU', init='random', seed=s,
                 value=40.0) for s in (2, 0)]
    assert study.table_settings(asked, rows)['seeds'] == [0, 2]
    assert study.table_settings(asked)['seeds'] == (0, 1, 2, 3, 4)


def test_a_pretraining_made_again_keeps_its_record_or_keeps_it_inside(
        tmp_path, monkeypatch):
    """A record whose checkpoint is gone (a new clone) has the pretraining
    made again: the same logged losses keep the record as it is, other
    losses replace it and keep it inside the new one, each said."""
    settings = runs.TransferSettings(work_dir=str(tmp_path / 'work'),
                                     records=str(tmp_path / 'records'))
    logged = [dict(step=10, value=0.9), dict(step=20, value=0.7)]
    monkeypatch.setattr(study, 'pretrain_config', lambda name, s: None)
    # A runner whose clock says 10 minutes of training.
    clocked = SimpleNamespace(message_hub=SimpleNamespace(
        get_info=lambda key: 600.0))
    monkeypatch.setattr(study, 'train_resuming',
                        lambda cfg, folder, settings: (clocked, None))
    monkeypatch.setattr(study, 'logged_scalars', lambda folder: logged)
    (tmp_path / 'records').mkdir()
    study.pretrain('mae', settings, log=lambda line: None)
    path = tmp_path / 'records' / 'pretrain_mae.json'
    first = json.loads(path.read_text())
    assert first['train_minutes'] == 10.0
    first['train_minutes'] = 12.5  # the first sitting's, over its starts
    path.write_text(json.dumps(first))
    said = []
    checkpoint, minutes = study.pretrain('mae', settings, log=said.append)
    assert minutes == 12.5 and json.loads(path.read_text()) == first
    # The studies' one rule (experiments.records.recorded_step).
    assert said[0] == (f'[pretrain] mae: {path}: its checkpoints are gone '
                       '(epoch_160.pth): made again')
    assert said[-1] == (f'[pretrain] mae: {path}: made again, the same as '
                        'its record: the record kept')
    logged[1] = dict(step=20, value=0.2)
    said.clear()
    study.pretrain('mae', settings, log=said.append)
    made = json.loads(path.read_text())
    assert made['replaced'] == first
    assert made['losses'] == [[10, 0.9], [20, 0.2]]
    assert 'not the same as its record (logged losses apart by up to 0.5)' \
        in said[-1]
    assert made['settings'] == first['settings']


def test_pretrained_from_uses_another_studys_pretraining_or_says_why_not(
        tmp_path):
    other_work, other_records = tmp_path / 'study', tmp_path / 'records'
    values = cli.parse_args([
        '--pretrained-from', str(other_work), str(other_records),
        '--work-dir', str(tmp_path / 'check')])
    settings = runs.TransferSettings(**values)
    assert settings.pretrained_from == (str(other_work), str(other_records))
    # No record there: refused, naming the flag and the file.
    with pytest.raises(UserError,
                       match='--pretrained-from: .*pretrain_mae.json: no '
                       'record, not of the pretraining'):
        study.pretrain('mae', settings, log=lambda line: None)
    wanted = dict(pretraining='mae', config=runs.PRETRAININGS['mae'],
                  seed=0, epochs=settings.pretrain_epochs,
                  digits=settings.pretrain_digits)
    other_records.mkdir()
    (other_records / 'pretrain_mae.json').write_text(json.dumps(
        dict(settings=wanted, losses=[], minutes=4.0)))
    # The record without its checkpoint: refused too (a report needs none).
    epochs = settings.pretrain_epochs
    with pytest.raises(UserError,
                       match=f'epoch_{epochs}.pth does not exist'):
        study.pretrain('mae', settings, log=lambda line: None)
    report = runs.TransferSettings(**values, report_only=True)
    checkpoint = other_work / 'pretrain' / 'mae' / f'epoch_{epochs}.pth'
    assert study.pretrain('mae', report) == (str(checkpoint), 0.0)
    checkpoint.parent.mkdir(parents=True)
    checkpoint.write_bytes(b'')
    said = []
    assert study.pretrain('mae', settings, log=said.append) == (
        str(checkpoint), 0.0)  # its minutes are not counted again
    assert said == [f'[pretrain] mae: reused from {other_work}']
    assert not (tmp_path / 'check').exists()  # nothing written here
    # Another epoch count is another pretraining: its record does not match.
    longer = runs.TransferSettings(**values, pretrain_epochs=epochs * 2)
    with pytest.raises(UserError,
                       match=f"mae.json: the record of .*'epochs': {epochs}"):
        study.pretrain('mae', longer, log=lambda line: None)


def test_the_help_says_what_each_unset_length_means(capsys):
    from experiments.transfer_small.cli import parse_args
    with pytest.raises(SystemExit):
        parse_args(['--help'])
    help_text = ' '.join(capsys.readouterr().out.split())
    assert 'None: None' not in help_text
    assert "iterations of each UperNet run; None: the config's" in help_text


def test_report_only_and_readout_only_are_refused_together(capsys):
    from experiments.transfer_small.cli import parse_args
    with pytest.raises(SystemExit) as exit_:
        parse_args(['--report-only', '--readout-only'])
    assert exit_.value.code == 2
    assert 'not allowed with argument' in capsys.readouterr().err


def test_scenes_of_other_counts_are_refused_not_replaced(tmp_path):
    """The runs of a work dir were trained on its scenes: a study asking
    for other counts stops before anything is made, and they stay."""
    scenes = tmp_path / 'digit_scenes'
    scenes.mkdir()
    stats = dict(seed=0, training=dict(scenes=16), validation=dict(scenes=8))
    (scenes / 'statistics.json').write_text(json.dumps(stats))
    settings = runs.TransferSettings(work_dir=str(tmp_path), train_scenes=20,
                                     val_scenes=8)
    with pytest.raises(UserError, match=(
            r'^--work-dir: .*digit_scenes holds 16 training and 8 validation '
            r'scenes of seed 0, this study asks for 20 and 8 of seed 0;')):
        study.ensure_scenes(settings, log=lambda line: None)
    assert sorted(p.name for p in scenes.iterdir()) == ['statistics.json']
    study.ensure_scenes(runs.TransferSettings(
        work_dir=str(tmp_path), train_scenes=16, val_scenes=8))  # reused
