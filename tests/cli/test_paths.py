"""The declared path arguments and their checks (randsac_mm.cli.paths,
ToolParser): what each declaration option changes. Every tool's arguments
are walked in tests/tools/test_every_tool_walked.py."""
import json
import os

import pytest

from randsac_mm.checkpoint import write_json
from randsac_mm.cli.errors import UserError
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import (
    CHECKPOINT,
    CONFIG,
    INPUT_FILE,
    OUTPUT_FILE,
    OUTPUT_FOLDER,
    PathArgument,
)


@pytest.fixture
def place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'a.py').write_text('x = 1\n')
    (tmp_path / 'a.pth').write_bytes(b'weights')
    return tmp_path


def parser_with(*declarations):
    parser = ToolParser(prog='tool')
    for flags, options in declarations:
        parser.add_path(*flags, **options)
    return parser


def test_an_output_that_is_an_input_by_another_name_is_refused(place):
    os.symlink(place / 'a.pth', place / 'link.pth')
    parser = parser_with((['src'], dict(kind=CHECKPOINT)),
                         (['dst'], dict(kind=OUTPUT_FILE)))
    with pytest.raises(UserError, match='^dst: link.pth is src, which this '
                       'tool reads; give another file name$'):
        parser.parse_args(['a.pth', 'link.pth'])
    assert parser.parse_args(['a.pth', 'b.pth']).dst == 'b.pth'


def test_inputs_are_checked_before_outputs_whatever_the_order(place):
    parser = parser_with((['--out'], dict(kind=OUTPUT_FILE)),
                         (['config'], dict(kind=CONFIG)))
    # Both wrong: the input is named, as it is what the output is
    # compared with.
    with pytest.raises(UserError, match='^config: no such file'):
        parser.parse_args(['missing.py', '--out', str(place)])


def test_suffixes_default_from_and_values_that_are_no_path(place):
    parser = ToolParser(prog='tool')
    parser.add_path('checkpoint', kind=CHECKPOINT)
    parser.add_path('--out', kind=OUTPUT_FILE, suffixes=('.pkl', ),
                    default_from=lambda args: args.checkpoint + '.pkl')
    parser.add_path('--resume', kind=CHECKPOINT, nargs='?', const='auto',
                    not_a_path=lambda value: value == 'auto')
    args = parser.parse_args(['a.pth', '--resume'])
    assert args.out == 'a.pth.pkl' and args.resume == 'auto'
    with pytest.raises(UserError, match=r'^--out: b\.json does not end '
                       r'with \.pkl'):
        parser.parse_args(['a.pth', '--out', 'b.json'])
    with pytest.raises(UserError, match="^--resume: no such file 'auto2'"):
        parser.parse_args(['a.pth', '--resume', 'auto2'])


def test_a_checkpoint_folder_only_where_declared(place):
    (place / 'deepspeed').mkdir()
    parser = parser_with((['--resume'], dict(kind=CHECKPOINT,
                                             may_be_folder=True)),
                         (['--load'], dict(kind=CHECKPOINT)))
    assert parser.parse_args(['--resume', 'deepspeed']).resume == 'deepspeed'
    with pytest.raises(UserError, match="^--load: 'deepspeed' is a "
                       'directory; give a checkpoint file$'):
        parser.parse_args(['--load', 'deepspeed'])


def test_every_value_of_a_list_is_checked(place):
    parser = parser_with((['--img'], dict(kind=INPUT_FILE, nargs='+')))
    with pytest.raises(UserError, match="^--img: no such file 'b.png'"):
        parser.parse_args(['--img', 'a.py', 'b.png'])


def test_an_output_folder_under_a_file_cannot_be_made(place):
    parser = parser_with((['--out-dir'], dict(kind=OUTPUT_FOLDER)))
    with pytest.raises(UserError, match=r'^--out-dir: cannot make .*a\.py/'
                       r'x \(.*a\.py is not a writable folder\); give a '
                       r'writable folder$'):
        parser.parse_args(['--out-dir', 'a.py/x'])
    assert not (place / 'new').exists()
    assert parser.parse_args(['--out-dir', 'new/deeper']).out_dir
    assert not (place / 'new').exists()  # checked, not made


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="kind: 'image'; allowed"):
        PathArgument('x', 'x', 'image')


def test_parser_errors_are_one_line(capsys):
    parser = ToolParser(prog='tool')
    parser.add_argument('--n', type=int, required=True)
    with pytest.raises(SystemExit) as exit:
        parser.parse_args([])
    assert exit.value.code == 2
    assert capsys.readouterr().err == \
        'tool: error: the following arguments are required: --n\n'


def test_write_json_is_whole_or_the_previous_file(place, monkeypatch):
    path = place / 'out' / 'r.json'
    write_json(str(path), {'a': 1})  # its folder made
    assert json.loads(path.read_text()) == {'a': 1}

    def fail(*args):
        raise OSError('disk full')

    monkeypatch.setattr(os, 'replace', fail)
    with pytest.raises(OSError, match='disk full'):
        write_json(str(path), {'a': 2})
    assert json.loads(path.read_text()) == {'a': 1}
    assert os.listdir(place / 'out') == ['r.json']  # no temporary file
