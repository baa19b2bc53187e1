"""The argument types the command lines share: a seed is refused by the
parser, naming the argument, before any work (numpy would refuse it only
when the run first draws)."""
import argparse

import pytest

from randsac_mm.cli.args import MAX_SEED, seed_value


@pytest.mark.parametrize('text, value', [('0', 0), ('7', 7),
                                         (str(MAX_SEED), MAX_SEED)])
def test_a_seed_from_0_to_2_to_the_32_minus_1(text, value):
    assert seed_value(text) == value


@pytest.mark.parametrize('text, message', [
    ('-1', 'must be >= 0, got -1'),
    (str(MAX_SEED + 1), f'must be at most {MAX_SEED}, got {MAX_SEED + 1}'),
    ('one', "'one' is not an integer")])
def test_a_seed_out_of_range_is_refused(text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        seed_value(text)


@pytest.mark.parametrize('module', ['experiments.transfer_small.cli',
                                    'experiments.transfer_small.curve',
                                    'experiments.small_scale',
                                    'experiments.paper_scale'])
def test_the_studies_refuse_a_negative_seed_naming_it(module, capsys):
    import importlib
    parse_args = importlib.import_module(module).parse_args
    with pytest.raises(SystemExit) as exit_:
        parse_args(['--seeds', '0', '-1'])
    assert exit_.value.code == 2
    assert 'argument --seeds: must be >= 0, got -1' \
        in capsys.readouterr().err
