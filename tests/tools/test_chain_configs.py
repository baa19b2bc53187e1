"""tools/pretrain_linear_finetune.py checks, before its first stage, the
configs its stages' tools/train.py will run: the same ``--cfg-options``,
read by the one reader (``randsac_mm.cli.args.parse_cfg_options``) and
applied the same way, the schedule fitted to a new length included."""
import pytest

from randsac_mm.cli.run_flags import load_run_config

from ..conftest import REPO_ROOT
from ..tool_runs import tool_globals

PRETRAIN = f'{REPO_ROOT}/configs/demo/' \
    'randsac_vit-mini-p4_square-16to4_digits.py'
OPTIONS = ['--pretrain-options', 'train_cfg.max_epochs=7',
           '--linear-options', 'train_cfg.max_epochs=3',
           'optim_wrapper.optimizer.lr=0.5']


def commands(chain, argv, monkeypatch):
    """{stage: the tools/train.py arguments the chain runs it with}, from
    the chain's own ``train`` (nothing run)."""
    args = chain['parse_args'](argv)
    chain['stage_config'](args, 'pretrain', None)  # names the others
    ran = {}

    def run(command, step):
        ran[step] = command[2:]  # after python and tools/train.py
    monkeypatch.setitem(chain['train'].__globals__, 'run', run)
    monkeypatch.setitem(chain['train'].__globals__, 'newest_checkpoint',
                        lambda work_dir: 'encoder.pth')
    for stage in chain['STAGES']:
        chain['train'](getattr(args, f'{stage}_config'), f'work/{stage}',
                       chain['stage_options'](stage, args, 'encoder.pth'),
                       1, 'cpu', stage)
    return args, ran


def test_each_stage_checks_the_config_its_train_py_runs(monkeypatch,
                                                        logged):
    chain = tool_globals('tools/pretrain_linear_finetune.py', 'chain')
    train_tool = tool_globals('tools/train.py', 'train_tool')
    args, ran = commands(chain, [PRETRAIN, '--device', 'cpu', *OPTIONS],
                         monkeypatch)
    for stage in chain['STAGES']:
        checked = chain['stage_config'](args, stage, 'encoder.pth')
        runs = load_run_config(train_tool['parse_args'](ran[stage]))
        # load_run_config adds what the command line sets beside the config.
        for key in ('launcher', 'work_dir'):
            runs.pop(key)
        assert checked.to_dict() == runs.to_dict(), stage
    linear = chain['stage_config'](args, 'linear', 'encoder.pth')
    assert linear.optim_wrapper.optimizer.lr == 0.5
    assert linear.model.backbone.init_cfg.checkpoint == 'encoder.pth'
    # A new length fits the schedule, in the check as in the run.
    pretrain = chain['stage_config'](args, 'pretrain', None)
    assert max(s['end'] for s in pretrain.param_scheduler) == 7
    assert any('the learning-rate schedule fitted to 7 epochs' in line
               for line in logged)


def test_a_value_that_cannot_be_read_is_one_line_naming_the_option(capsys):
    chain = tool_globals('tools/pretrain_linear_finetune.py', 'chain')
    with pytest.raises(SystemExit) as e:
        chain['parse_args']([PRETRAIN, '--linear-options', 'a.b=[1,'])
    assert e.value.code == 2
    assert capsys.readouterr().err.strip().endswith(
        "argument --linear-options: cannot read 'a.b=[1,': Imbalanced "
        'brackets exist in [1,')
