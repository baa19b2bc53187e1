"""tools/train.py's runner: FlexibleRunner for a strategy, refusals first."""
import pytest
from mmengine.config import Config

from randsac_mm.cli.errors import UserError
from randsac_mm.run.runner import check_strategy

FSDP = 'configs/pretrain/randsac_vit-large-p16_square-16to4_16xb256-amp-' \
    'fsdp-1600e_in1k.py'


def fsdp_config(**changes):
    cfg = Config.fromfile(FSDP)
    cfg.launcher = 'pytorch'
    cfg.merge_from_dict(changes)
    return cfg


def test_the_fsdp_config_is_accepted_on_gpus():
    check_strategy(fsdp_config(), cuda_available=True)
    check_strategy(Config(dict(launcher='none')), cuda_available=False)


@pytest.mark.parametrize('changes, cuda, error, message', [
    (dict(strategy=dict(type='ColossalAIStrategy')), True, ValueError,
     r"strategy.type: 'ColossalAIStrategy' is not supported; allowed: "
     r"\('DDPStrategy', 'FSDPStrategy', 'DeepSpeedStrategy'\)"),
    (dict(launcher='none'), True, ValueError,
     'FSDPStrategy shards the model over processes: launch with '
     'tools/dist_train.sh'),
    ({}, False, UserError, 'FSDPStrategy needs CUDA GPUs'),
    (dict(optim_wrapper=dict(type='AmpOptimWrapper')), True, ValueError,
     'AmpOptimWrapper .* does not scale sharded gradients'),
    (dict(strategy=dict(type='DeepSpeedStrategy')), True, (UserError,
                                                           ValueError),
     'DeepSpeedStrategy needs'),
])
def test_what_cannot_be_honoured_is_refused(changes, cuda, error, message):
    with pytest.raises(error, match=message):
        check_strategy(fsdp_config(**changes), cuda_available=cuda)


def test_train_runs_the_model_its_checks_built_as_the_runner_would(
        tmp_path, monkeypatch):
    """tools/train.py hands the model and data set its checks built to the
    Runner (built once), and the run is the one a Runner that builds them
    itself makes: the same weights after an epoch, bit for bit (the
    preflight seeds the generators as the Runner would just before the
    model's build, and the Runner does not seed them again)."""
    import torch

    from randsac_mm.datasets.digits import DigitsDataset
    from randsac_mm.run import runner as runner_module

    from ..conftest import DEMO_CLASSIFIER, run_tool
    handed = []
    build_runner = runner_module.build_runner

    def spy(cfg, built=None):
        handed.append(built)
        runner = build_runner(cfg, built)
        handed.append(runner)
        return runner

    def train(work_dir):
        run_tool(['tools/train.py', DEMO_CLASSIFIER, '--device', 'cpu',
                  '--work-dir', work_dir, '--cfg-options',
                  'train_cfg.max_epochs=1',
                  'train_dataloader.dataset.indices=128',
                  'train_cfg.val_interval=100'])
        return torch.load(work_dir / 'epoch_1.pth', map_location='cpu',
                          weights_only=False)['state_dict']

    monkeypatch.setattr(runner_module, 'build_runner', spy)
    made = []
    init = DigitsDataset.__init__
    monkeypatch.setattr(DigitsDataset, '__init__', lambda self, *a, **k: (
        made.append(self), init(self, *a, **k))[1])
    once = train(tmp_path / 'once')
    built, runner = handed
    assert runner.model is built.model
    # mmengine deep-copies a loader's settings, the data set with them: a
    # copy, not a second build (no listing or reading of its files).
    assert [d for d in made if d.split == 'train'] == [built.dataset]
    assert type(runner.train_dataloader.dataset) is DigitsDataset
    monkeypatch.setattr(runner_module, 'build_runner',
                        lambda cfg, built=None: build_runner(cfg))
    twice = train(tmp_path / 'twice')
    assert once.keys() == twice.keys()
    assert all(torch.equal(once[k], twice[k]) for k in once)
