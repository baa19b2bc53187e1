"""tools/train.py's runner: FlexibleRunner for a strategy, refusals first."""
import pytest
from mmengine.config import Config

from randsac_mm._cli.errors import UserError
from randsac_mm._cli.runner import check_strategy

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
