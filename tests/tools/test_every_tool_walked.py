"""Every tool in tools/ (and the demo) walked through each class of mistake
its declared path arguments admit: a missing path, a folder for a file, a
file for a folder, an output equal to an input, an unwritable place, a
config and a checkpoint swapped, an unknown config key. Each is one line
naming the argument, exit code 2, and nothing written.

The cases come from each tool's parser (``ToolParser.add_path``): a new
tool is walked once it declares its arguments, and a tool that is not
walked fails ``test_every_tool_is_walked``. Nothing trains: each case
stops at the tool's checks, in this process.
"""
import glob
import os
import os.path as osp
import re

import pytest

from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import (
    CHECKPOINT,
    CONFIG,
    INPUT_FILE,
    OUTPUT_FILE,
)

from ..tool_runs import REPO_ROOT, parser_of, run_in_process

PYTHON_TOOLS = sorted(osp.relpath(p, REPO_ROOT) for p in glob.glob(
    osp.join(REPO_ROOT, 'tools', '**', '*.py'), recursive=True))
# User commands outside tools/ that take paths.
COMMANDS = PYTHON_TOOLS + ['experiments.demo', 'experiments.digit_scenes',
                           'experiments.paper_scale',
                           'experiments.transfer_small',
                           'experiments.transfer_small.curve']
SCRIPTS = sorted(osp.relpath(p, REPO_ROOT) for p in glob.glob(
    osp.join(REPO_ROOT, 'tools', '*.sh')))
DEMO = 'configs/demo/'
# A real config of the kind each tool with config overrides takes: the
# unknown key must reach the class that refuses it.
OVERRIDE_CONFIGS = {
    'tools/train.py': DEMO + 'vit-mini-p4_1xb64-10e_digits.py',
    'tools/test.py': DEMO + 'vit-mini-p4_1xb64-10e_digits.py',
    'tools/analysis/get_flops.py':
        DEMO + 'randsac_vit-mini-p4_square-16to4_digits.py',
    'tools/analysis/pretrain_memory.py':
        DEMO + 'randsac_vit-mini-p4_square-16to4_digits.py',
    'tools/pretrain_linear_finetune.py':
        DEMO + 'randsac_vit-mini-p4_square-16to4_digits.py',
}
# Tools whose overrides reach configs they choose (no config argument):
# the test of their unknown key.
OVERRIDES_TESTED_ELSEWHERE = {
    'experiments.transfer_small': 'tests/experiments/test_transfer_small.py'
    '::test_an_unknown_cfg_option_is_one_line_naming_it_and_makes_nothing',
}
UNKNOWN_KEY = 'model.backbone.nonsense=1'
IS_ROOT = hasattr(os, 'geteuid') and os.geteuid() == 0


@pytest.fixture(scope='module')
def parsers():
    """{tool: its ToolParser}, caught as each tool's main parses."""
    found = {}
    with pytest.MonkeyPatch.context() as patch:
        for tool in COMMANDS:
            found[tool] = parser_of(tool, patch)[1]
    return found


@pytest.fixture
def place(tmp_path):
    """A folder with one existing file of each input kind, a plain file
    and a plain folder."""
    (tmp_path / 'model.py').write_text('model = dict(type="Nothing")\n')
    (tmp_path / 'model.pth').write_bytes(b'not read: the checks stop first')
    (tmp_path / 'image.png').write_bytes(b'not read either')
    (tmp_path / 'a_file').write_text('a file\n')
    (tmp_path / 'a_folder').mkdir()
    return tmp_path


def value_of(argument, place, name):
    """A valid value for the declared ``argument`` in ``place``."""
    if argument.kind == CONFIG:
        return str(place / 'model.py')
    if argument.kind == CHECKPOINT:
        return str(place / 'model.pth')
    if argument.kind == INPUT_FILE:
        return str(place / 'image.png')
    if argument.kind == OUTPUT_FILE:
        return str(place / 'out' / (name + (argument.suffixes or
                                            ('.json', ))[0]))
    return str(place / 'out' / name)


def command_line(parser, place, values, every_path=True):
    """A command line of ``parser``'s tool: every declared path (valid,
    or as ``values`` {dest: value} say; with ``every_path`` False only the
    required ones), what is required, and one member of each required group
    of alternatives."""
    declared = {a.dest: a for a in parser.path_arguments}
    left_out, picked = set(), set()
    for group in parser._mutually_exclusive_groups:
        members = group._group_actions
        pick = next((a for a in members if a.dest in values), None) or \
            next((a for a in members if a.dest in declared), None) or \
            (members[0] if group.required else None)
        left_out |= {a.dest for a in members if a is not pick}
        picked |= {pick.dest} if pick is not None and group.required else set()
    positional, options = [], []
    for action in parser._actions:
        if action.dest in left_out or action.dest == 'help':
            continue
        required = action.required or action.dest in picked
        optional = action.option_strings and not required or \
            action.nargs in ('?', '*')
        if action.dest in values:
            value = values[action.dest]
        elif action.dest in declared and (every_path or not optional):
            value = values.get(action.dest, value_of(
                declared[action.dest], place, action.dest))
        elif required and action.choices:
            value = sorted(action.choices)[0]
        elif required and action.nargs == 0:  # a store_true
            options.append(action.option_strings[0])
            continue
        else:
            continue
        if action.option_strings:
            options += [action.option_strings[0], value]
        else:
            positional.append(value)
    return positional + options


def mistakes_of(argument, inputs):
    """{what: function(place) -> value} of the mistakes ``argument``
    admits; ``inputs`` are the tool's valid input paths."""
    if argument.kind in (CONFIG, CHECKPOINT, INPUT_FILE):
        suffix = {CONFIG: '.py', CHECKPOINT: '.pth'}.get(argument.kind,
                                                          '.png')
        found = {'missing': lambda p: str(p / 'missing' / ('x' + suffix))}
        if not argument.may_be_folder:
            found['a folder for a file'] = lambda p: str(p / 'a_folder')
        return found
    under_a_file = {'unwritable': lambda p: str(p / 'a_file' / 'x.json')}
    if not IS_ROOT:  # root writes anywhere
        under_a_file['read-only folder'] = lambda p: str(
            read_only(p) / 'x.json')
    if argument.kind == OUTPUT_FILE:
        found = {'a folder for a file': lambda p: str(p / 'a_folder'),
                 **under_a_file}
        for name, path in inputs:
            found[f'equal to {name}'] = path
        return found
    return {'a file for a folder': lambda p: str(p / 'a_file'),
            **under_a_file}


def read_only(place):
    folder = place / 'read_only'
    folder.mkdir(exist_ok=True)
    folder.chmod(0o555)
    return folder


def snapshot(place):
    """What exists under ``place`` and the repository's work_dirs."""
    found = set()
    for root in (str(place), osp.join(REPO_ROOT, 'work_dirs')):
        for folder, folders, files in os.walk(root):
            found |= {osp.join(folder, n) for n in folders + files}
    return found


def refused(tool, argv, monkeypatch, capsys, place, naming):
    """Runs the tool; asserts one line naming ``naming``, exit code 2 and
    nothing written."""
    before = snapshot(place)
    code, out, err = run_in_process([tool] + argv, monkeypatch, capsys)
    lines = err.strip().splitlines()
    assert code == 2, f'{tool} {argv}: exit {code}\n{out[-1500:]}{err[-3000:]}'
    assert len(lines) == 1, f'{tool} {argv}:\n{err[-3000:]}'
    name = tool if tool.endswith('.py') else tool.split('.')[-1]
    assert re.search(rf'{re.escape(name)}: error: ', lines[0]), lines[0]
    assert naming in lines[0], (naming, lines[0])
    assert snapshot(place) == before, sorted(snapshot(place) - before)
    return lines[0]


def test_every_tool_is_walked(parsers):
    """Every Python tool parses with a ToolParser; every script starts a
    walked tool (its own arguments are checked by that tool's --dry-run,
    which it runs first)."""
    for tool, parser in parsers.items():
        assert isinstance(parser, ToolParser), tool
    for script in SCRIPTS:
        text = open(osp.join(REPO_ROOT, script)).read()
        if text.startswith('# Sourced by'):  # dist_check.sh: functions
            continue
        names = set(re.findall(r'"\$HERE/(\w+\.py)"', text))
        assert names, f'{script} starts no Python tool'
        for name in names:
            assert f'tools/{name}' in parsers, (script, name)
    # Each tool with config overrides has a config to walk them with.
    for tool, parser in parsers.items():
        if any(a.metavar == 'KEY=VALUE' for a in parser._actions):
            assert tool in OVERRIDE_CONFIGS or \
                tool in OVERRIDES_TESTED_ELSEWHERE, tool


@pytest.mark.parametrize('tool', COMMANDS)
def test_each_path_mistake_is_one_line_and_writes_nothing(
        tool, parsers, place, monkeypatch, capsys):
    parser = parsers[tool]
    assert parser.path_arguments, f'{tool} declares no path argument'
    inputs = [(a.name, value_of(a, place, a.dest))
              for a in parser.path_arguments
              if a.kind in (CONFIG, CHECKPOINT, INPUT_FILE)]
    walked = 0
    for argument in parser.path_arguments:
        for what, value in mistakes_of(argument, inputs).items():
            value = value(place) if callable(value) else value
            argv = command_line(parser, place, {argument.dest: value})
            refused(tool, argv, monkeypatch, capsys, place, argument.name)
            walked += 1
    assert walked >= len(parser.path_arguments)  # one or more each


def test_config_and_checkpoint_swapped_is_one_line(parsers, place,
                                                   monkeypatch, capsys):
    walked = []
    for tool, parser in parsers.items():
        kinds = {a.kind: a for a in reversed(parser.path_arguments)}
        if not (CONFIG in kinds and CHECKPOINT in kinds):
            continue
        config, checkpoint = kinds[CONFIG], kinds[CHECKPOINT]
        # The checkpoint where the config goes, and the other way round.
        argv = command_line(parser, place, {
            config.dest: value_of(checkpoint, place, checkpoint.dest),
            checkpoint.dest: value_of(config, place, config.dest)})
        line = refused(tool, argv, monkeypatch, capsys, place, config.name)
        assert 'checkpoint given in its place' in line
        walked.append(tool)
    # train.py (--resume), test.py, eval_frozen.py, vis_reconstruction.py,
    # export.py (--config), pretrain_linear_finetune.py
    assert len(walked) == 6, walked


@pytest.mark.parametrize('tool', sorted(OVERRIDE_CONFIGS))
def test_an_unknown_config_key_names_the_key_and_class(
        tool, parsers, place, monkeypatch, capsys):
    parser = parsers[tool]
    config = next(a for a in parser.path_arguments if a.kind == CONFIG)
    overrides = next(a for a in parser._actions
                     if a.metavar == 'KEY=VALUE')
    values = {config.dest: osp.join(REPO_ROOT, OVERRIDE_CONFIGS[tool])}
    argv = command_line(parser, place, values, every_path=False)
    argv += [overrides.option_strings[0], UNKNOWN_KEY]
    if '--dry-run' in parser._option_string_actions:
        argv.append('--dry-run')
    if '--device' in parser._option_string_actions:
        argv += ['--device', 'cpu']
    line = refused(tool, argv, monkeypatch, capsys, place, 'nonsense')
    assert re.search(r'model\.backbone\.nonsense \(\w+\)', line), line


@pytest.mark.parametrize('value', ['-1', str(2**32)])
def test_every_seed_argument_refuses_what_cannot_seed_a_run(
        value, parsers, place, monkeypatch, capsys):
    """A seed torch and numpy cannot take is refused with the other
    arguments, before anything is made (a study once made its scenes,
    pretrained and read out before ``--seeds -1`` failed unnamed)."""
    walked = []
    for tool, parser in parsers.items():
        for action in parser._actions:
            if action.dest not in ('seed', 'seeds') or \
                    not action.option_strings:
                continue
            argv = command_line(parser, place, {action.dest: value})
            refused(tool, argv, monkeypatch, capsys, place,
                    f'argument {action.option_strings[0]}')
            walked.append(tool)
    assert {'tools/analysis/eval_frozen.py', 'experiments.transfer_small',
            'experiments.paper_scale', 'experiments.digit_scenes'} <= \
        set(walked), walked
