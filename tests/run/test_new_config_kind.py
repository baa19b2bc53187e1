"""A new config kind from this file alone: depth estimation.

``DepthConfig`` is what a user writes to add a kind (docs/architecture.md,
"Adding a config kind"): a check on the class a config's ``model.type``
builds, never on the type's name. The model class is registered in a
scope of its own, as a downstream project registers its models; the
fixture registers the kind for this module's tests only.
"""
import pytest
from mmengine.config import Config
from mmengine.model import BaseModel
from mmengine.registry import Registry
from mmpretrain.registry import MODELS

from randsac_mm.cli.errors import UserError

# Imported as the module's: a name starting with 'test' would be
# collected by pytest as a test of its own.
from randsac_mm.run import config_kinds
from randsac_mm.run.config_kinds import (
    CONFIG_KINDS,
    ConfigKind,
    config_kind,
    register_config_kind,
    require_kind,
    trainable_kinds,
)


class BaseDepthEstimator(BaseModel):
    """What every depth model of the new kind subclasses."""


class TinyDepth(BaseDepthEstimator):
    pass


# The user's own registry: a child of mmpretrain's, found by its scope.
DEPTH_MODELS = Registry('model', parent=MODELS, scope='depth_example')
DEPTH_MODELS.register_module(module=TinyDepth)


class DepthConfig(ConfigKind):
    description = 'a depth-estimation config'
    trainable = True

    def matches(self, cfg, model_class):
        return model_class is not None and issubclass(model_class,
                                                      BaseDepthEstimator)


@pytest.fixture(autouse=True, scope='module')
def depth():
    register_config_kind('depth')(DepthConfig)
    yield
    CONFIG_KINDS.unregister('depth')


def config(model, scope='mmpretrain'):
    return Config(dict(default_scope=scope, model=model))


def depth_config():
    return config(dict(type='TinyDepth'), scope='depth_example')


def test_a_config_of_its_model_is_of_the_new_kind():
    assert config_kind(depth_config()) == 'depth'
    # The others keep theirs: the check is the class, not a name.
    assert config_kind(config(dict(type='MAE', backbone=dict()))) == \
        'pretraining'
    assert config_kind(Config(dict(train_dataloader=dict()))) == 'data'


def test_the_tools_take_or_refuse_it_by_its_description():
    assert 'depth' in trainable_kinds()
    assert 'depth' not in config_kinds.testable_kinds()
    assert config_kinds.testable_kinds() == (
        'classifier', 'segmentation', 'detection')
    with pytest.raises(UserError, match=r'^config: depth\.py is a '
                       r'depth-estimation config; this tool takes a '
                       r'self-supervised pretraining config \(RandSAC, '
                       r'MAE\)$'):
        require_kind(depth_config(), ('pretraining', ),
                     'config', 'configs/depth.py')


def test_an_unregistered_model_type_is_named():
    with pytest.raises(UserError, match=r"model\.type 'TinyDepthh' is not a "
                       r"model registered in scope 'mmpretrain'"):
        config_kind(config(dict(type='TinyDepthh')))
    # Its class is in its own scope only, as a downstream project's are.
    with pytest.raises(UserError, match=r"model\.type 'TinyDepth' is not"):
        config_kind(config(dict(type='TinyDepth')))
