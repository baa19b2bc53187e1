"""A new config kind from this file alone: depth estimation.

``DepthConfig`` is what a user writes to add a kind (docs/architecture.md,
"Adding a config kind"): a check on the class a config's ``model.type``
builds, never on the type's name. The fixture registers it, and a model
class for it, for this module's tests only.
"""
import pytest
from mmengine.config import Config
from mmengine.model import BaseModel
from mmpretrain.registry import MODELS

from randsac_mm.cli.errors import UserError
from randsac_mm.run.config_kinds import (
    CONFIG_KINDS,
    ConfigKind,
    config_kind,
    register_config_kind,
    require_kind,
    testable_kinds,
    trainable_kinds,
)


class BaseDepthEstimator(BaseModel):
    """What every depth model of the new kind subclasses."""


class TinyDepth(BaseDepthEstimator):
    pass


class DepthConfig(ConfigKind):
    description = 'a depth-estimation config'
    trainable = True

    def matches(self, cfg, model_class):
        return model_class is not None and issubclass(model_class,
                                                      BaseDepthEstimator)


@pytest.fixture(autouse=True, scope='module')
def depth():
    MODELS.register_module('TinyDepth', module=TinyDepth)
    register_config_kind('depth')(DepthConfig)
    yield
    CONFIG_KINDS.unregister('depth')
    MODELS._module_dict.pop('TinyDepth')


def config(model):
    return Config(dict(default_scope='mmpretrain', model=model))


def test_a_config_of_its_model_is_of_the_new_kind():
    assert config_kind(config(dict(type='TinyDepth'))) == 'depth'
    # The others keep theirs: the check is the class, not a name.
    assert config_kind(config(dict(type='MAE', backbone=dict()))) == \
        'pretraining'
    assert config_kind(Config(dict(train_dataloader=dict()))) == 'data'


def test_the_tools_take_or_refuse_it_by_its_description():
    assert 'depth' in trainable_kinds()
    assert 'depth' not in testable_kinds()
    assert testable_kinds() == ('classifier', 'segmentation', 'detection')
    with pytest.raises(UserError, match=r'^config: depth\.py is a '
                       r'depth-estimation config; this tool takes a '
                       r'self-supervised pretraining config \(RandSAC, '
                       r'MAE\)$'):
        require_kind(config(dict(type='TinyDepth')), ('pretraining', ),
                     'config', 'configs/depth.py')


def test_an_unregistered_model_type_is_named():
    with pytest.raises(UserError, match=r"model\.type 'TinyDepthh' is not a "
                       r"model registered in scope 'mmpretrain'"):
        config_kind(config(dict(type='TinyDepthh')))
