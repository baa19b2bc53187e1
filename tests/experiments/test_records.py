"""experiments.records: a record is reused for its settings, refused for
others (never written over), and written whole."""
import json
import re
from types import SimpleNamespace

import pytest

from experiments.records import (
    load_record,
    read_record,
    same_settings,
    step_minutes,
    train_resuming,
    write_record,
)
from randsac_mm.cli.errors import UserError


def test_a_record_of_the_same_settings_is_reused_and_none_is_none(tmp_path):
    path = tmp_path / 'runs' / 'a.json'
    assert read_record(str(path), dict(seed=0), '--records') is None
    assert load_record(str(path)) is None
    write_record(str(path), dict(settings=dict(seed=0), loss=1.5))
    assert read_record(str(path), dict(seed=0), '--records') == dict(
        settings=dict(seed=0), loss=1.5)
    assert same_settings(str(path), dict(seed=0))['loss'] == 1.5


def test_a_record_of_other_settings_is_refused_naming_where_and_both(
        tmp_path):
    path = tmp_path / 'a.json'
    write_record(str(path), dict(settings=dict(seed=0)))
    kept = path.read_text()
    message = (f'--work-dir: {path} records other settings (seed: 0 there, '
               '1 here): give another --work-dir (that file is kept)')
    with pytest.raises(UserError, match=re.escape(message)):
        read_record(str(path), dict(seed=1), '--work-dir')
    assert path.read_text() == kept
    assert same_settings(str(path), dict(seed=1)) is None  # a report: none


def test_a_record_names_its_settings_and_is_written_whole(tmp_path):
    path = tmp_path / 'a.json'
    with pytest.raises(ValueError, match='a record names its settings'):
        write_record(str(path), dict(loss=1.0))
    assert not path.exists()
    write_record(str(path), dict(settings=dict(seed=0)))
    assert json.loads(path.read_text()) == dict(settings=dict(seed=0))
    assert [p.name for p in tmp_path.iterdir()] == ['a.json']  # no temp


def fake_runs(monkeypatch, seen=lambda cfg: None):
    """train_resuming's preflight and runner replaced: ``seen(cfg)`` is
    told of each run, which trains nothing."""
    from randsac_mm.run import preflight, runner
    monkeypatch.setattr(preflight, 'preflight', lambda cfg, purpose: None)
    monkeypatch.setattr(runner, 'build_runner', lambda cfg, parts: (
        seen(cfg), SimpleNamespace(train=lambda: None,
                                   register_hook=lambda hook: None))[1])


def test_a_checkpoint_of_another_run_is_refused_not_continued(
        tmp_path, monkeypatch):
    """With the step's settings, a run folder keeps them from its first
    start; its own checkpoint is continued, another run's (other settings,
    or none named) refused before anything is built."""
    from mmengine.config import Config

    import randsac_mm.checkpoint
    built = []
    fake_runs(monkeypatch, lambda cfg: built.append(cfg.get('load_from')))
    folder, found = tmp_path / 'run', {}
    monkeypatch.setattr(randsac_mm.checkpoint, 'latest_checkpoint',
                        lambda work_dir: found.get(work_dir))
    train_resuming(Config(), str(folder), dict(epochs=160))
    assert json.loads((folder / 'settings.json').read_text()) == dict(
        settings=dict(epochs=160))
    found[str(folder)] = str(folder / 'epoch_40.pth')
    train_resuming(Config(), str(folder), dict(epochs=160))
    assert built == [None, str(folder / 'epoch_40.pth')]
    with pytest.raises(UserError, match=re.escape(
            f'--work-dir: {folder} holds the checkpoint epoch_40.pth of '
            'another run (epochs: 160 there, 10 here): give another '
            '--work-dir, or remove that folder')):
        train_resuming(Config(), str(folder), dict(epochs=10))
    (folder / 'settings.json').unlink()
    with pytest.raises(UserError, match=r'of another run \(names no '
                       r'settings\)'):
        train_resuming(Config(), str(folder), dict(epochs=160))
    assert len(built) == 2
    assert not (folder / 'settings.json').exists()  # nothing claimed


def test_the_logs_of_another_run_are_refused_with_the_precision_to_use(
        tmp_path, monkeypatch):
    """A start stopped before its first checkpoint leaves logged losses,
    which a run of other settings would read back as its own; when only
    the precision differs, the refusal says how to run in the folder's.
    A start that logged nothing leaves nothing to refuse."""
    from mmengine.config import Config
    fake_runs(monkeypatch)
    folder = tmp_path / 'run'
    bf16 = dict(epochs=160, precision='bfloat16')
    train_resuming(Config(), str(folder), bf16)
    # Nothing logged yet: the folder is taken for the other settings.
    train_resuming(Config(), str(folder), dict(epochs=160))
    train_resuming(Config(), str(folder), bf16)
    log = folder / '20261129_044109' / 'vis_data'
    log.mkdir(parents=True)
    (log / 'scalars.json').write_text('{"loss": 4.1, "step": 20}\n')
    with pytest.raises(UserError, match=re.escape(
            f'--work-dir: {folder} holds the logged losses of another run '
            "(precision: 'bfloat16' there, None here): give another "
            '--work-dir, or remove that folder, or run in its precision: '
            'RANDSAC_CPU_PRECISION=bfloat16')):
        train_resuming(Config(), str(folder), dict(epochs=160))
    assert json.loads((folder / 'settings.json').read_text()) == dict(
        settings=bf16)  # kept
    train_resuming(Config(), str(folder), bf16)
    # A folder from before settings.json: refused, or, for a study whose
    # folders predate it, taken as this run's.
    (folder / 'settings.json').unlink()
    with pytest.raises(UserError, match=r'of another run \(names no '
                       r'settings\)'):
        train_resuming(Config(), str(folder), bf16)
    train_resuming(Config(), str(folder), bf16, adopt_unnamed=True)
    assert json.loads((folder / 'settings.json').read_text()) == dict(
        settings=bf16)


def test_a_recorded_step_runs_once_and_is_reused(tmp_path):
    """The step every study runs (recorded_step): made and recorded with its
    settings, minutes and where it ran; reused after; a report runs
    nothing."""
    from experiments.records import recorded_step
    path = str(tmp_path / 'step.json')
    made = []

    def make():
        made.append(1)
        return dict(loss=0.5)
    assert recorded_step(path, dict(seed=0), '--records', make,
                         report_only=True) is None
    record = recorded_step(path, dict(seed=0), '--records', make)
    assert record['settings'] == dict(seed=0) and record['loss'] == 0.5
    assert {'minutes', 'machine', 'commit'} <= set(record)
    assert recorded_step(path, dict(seed=0), '--records', make) == record
    assert made == [1]
    with pytest.raises(UserError, match='records other settings'):
        recorded_step(path, dict(seed=1), '--records', make)


def test_a_step_whose_checkpoints_are_gone_is_made_again_and_compared(
        tmp_path):
    """The one rule for a record whose checkpoints are gone (a new clone):
    made again; the same, the record kept; not, replaced and kept inside."""
    from experiments.records import recorded_step
    path = str(tmp_path / 'pretrain.json')
    checkpoint = tmp_path / 'epoch_2.pth'
    losses = [0.9, 0.7]

    def make():
        checkpoint.write_text('weights')
        return dict(losses=list(losses))

    def difference(old, new):
        return None if old['losses'] == new['losses'] else 'other losses'
    options = dict(checkpoints=[str(checkpoint)], difference=difference)
    first = recorded_step(path, dict(seed=0), '--records', make, **options)
    checkpoint.unlink()
    said = []
    assert recorded_step(path, dict(seed=0), '--records', make,
                         log=said.append, **options) == first
    assert checkpoint.exists()
    assert said == [f'{path}: its checkpoints are gone (epoch_2.pth): made '
                    'again', f'{path}: made again, the same as its record: '
                    'the record kept']
    checkpoint.unlink()
    losses[1] = 0.2
    said.clear()
    again = recorded_step(path, dict(seed=0), '--records', make,
                          log=said.append, **options)
    assert again['losses'] == [0.9, 0.2] and again['replaced'] == first
    assert json.loads(open(path).read()) == again
    assert 'not the same as its record (other losses)' in said[-1]


def test_how_a_step_ran_is_stamped_the_same_way_for_every_study(
        monkeypatch):
    from experiments.records import settings_stamp
    from randsac_mm.precision import CPU_PRECISION_ENV
    monkeypatch.setenv(CPU_PRECISION_ENV, 'float32')
    assert settings_stamp() == {}  # the records made before match
    assert settings_stamp('cuda', compile=True) == dict(device='cuda',
                                                         compile=True)
    monkeypatch.setenv(CPU_PRECISION_ENV, 'bfloat16')
    assert settings_stamp() == dict(precision='bfloat16')


def test_a_steps_minutes_are_its_clocks_where_it_kept_them():
    # The training over every start (experiments.training_clock) ...
    assert step_minutes(dict(minutes=5.0, train_minutes=9.0)) == 9.0
    # ... else the start that finished it (made before the clock, or a
    # step that trains nothing).
    assert step_minutes(dict(minutes=5.0)) == 5.0
    assert step_minutes(dict(minutes=5.0, train_minutes=None)) == 5.0
