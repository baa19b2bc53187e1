"""experiments.records: a record is reused for its settings, refused for
others (never written over), and written whole."""
import json
import re

import pytest

from experiments.records import (
    load_record,
    read_record,
    same_settings,
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
