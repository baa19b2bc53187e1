"""Each of our classes refuses a constructor argument it cannot use when it
is built, naming the argument (randsac_mm.argument_limits); the tools name
it by its place in the config, and another library's class that would
take a bad value in silence is checked by name (run.foreign_limits)."""
import re

import pytest
from mmengine.config import Config

import randsac_mm.registration  # noqa: F401  (our classes, mmpretrain's)
from randsac_mm.argument_limits import ArgumentOutOfRange
from randsac_mm.cli.errors import UserError
from randsac_mm.downstream.layer_decay_constructor import (
    BackboneLayerDecayOptimWrapperConstructor,
)
from randsac_mm.engine.fused_adamw_constructor import FusedAdamWConstructor
from randsac_mm.models import RandSACDecoder, RandSACViT
from randsac_mm.run.builds import check_model_builds
from randsac_mm.run.foreign_limits import check_optim_wrapper_limits

TINY = dict(arch=dict(embed_dims=32, num_layers=2, num_heads=2,
                      feedforward_channels=64), img_size=16, patch_size=4)


@pytest.mark.parametrize('rate', [1.0, -0.1, 'high'])
def test_a_drop_path_rate_outside_0_to_1_is_refused(rate):
    with pytest.raises(ArgumentOutOfRange, match=re.escape(
            f'drop_path_rate={rate!r}: give a number in [0, 1)')):
        RandSACViT(drop_path_rate=rate, **TINY)
    with pytest.raises(ArgumentOutOfRange, match='^drop_path_rate='):
        RandSACDecoder(num_patches=16, encoder_dims=32, encoder_layers=2,
                       num_layers=1, num_heads=2, drop_path_rate=rate)
    RandSACViT(drop_path_rate=0.99, **TINY)


def test_an_unknown_arch_names_the_zoo_and_its_names_are_any_case():
    with pytest.raises(ArgumentOutOfRange) as refused:
        RandSACViT(arch='gigantic')
    message = str(refused.value)
    assert message.startswith("arch='gigantic': give a name of RandSACViT's "
                              'arch_zoo (b, base, ')
    assert message.endswith('or a dict of embed_dims, num_layers, num_heads '
                            'and feedforward_channels')
    assert RandSACViT(arch='Deit-Tiny', img_size=32).embed_dims == 192


@pytest.mark.parametrize('rate', [0, -0.5, 1.5])
def test_our_layer_decay_constructor_refuses_a_rate_outside_0_to_1(rate):
    with pytest.raises(ArgumentOutOfRange, match=re.escape(
            f'paramwise_cfg.layer_decay_rate={rate!r}: give a number in '
            '(0, 1]')):
        BackboneLayerDecayOptimWrapperConstructor(
            dict(type='OptimWrapper', optimizer=dict(type='AdamW', lr=1e-3)),
            dict(layer_decay_rate=rate))


def optim_wrapper(**settings):
    return Config(dict(optim_wrapper=dict(**settings)))


def test_mmpretrains_layer_decay_is_checked_by_name_and_others_left_alone():
    cfg = optim_wrapper(
        constructor='LearningRateDecayOptimWrapperConstructor',
        paramwise_cfg=dict(layer_decay_rate=0))
    with pytest.raises(ArgumentOutOfRange,
                       match=r'^paramwise_cfg\.layer_decay_rate=0: '):
        check_optim_wrapper_limits(cfg)
    cfg.optim_wrapper.paramwise_cfg.layer_decay_rate = 0.65
    check_optim_wrapper_limits(cfg)
    # Our own constructor: it guards itself.
    check_optim_wrapper_limits(optim_wrapper(
        constructor='BackboneLayerDecayOptimWrapperConstructor',
        paramwise_cfg=dict(layer_decay_rate=0)))


def test_a_layer_decay_the_default_constructor_would_ignore_is_refused():
    with pytest.raises(ArgumentOutOfRange, match=re.escape(
            'paramwise_cfg.layer_decay_rate=1.5: give a number in (0, 1]')):
        check_optim_wrapper_limits(optim_wrapper(
            paramwise_cfg=dict(layer_decay_rate=1.5)))
    with pytest.raises(ArgumentOutOfRange, match=re.escape(
            "paramwise_cfg.layer_decay_rate=0.65: give it to a class that "
            "reads it: mmengine's DefaultOptimWrapperConstructor ignores "
            'it')):
        check_optim_wrapper_limits(optim_wrapper(
            paramwise_cfg=dict(layer_decay_rate=0.65)))
    check_optim_wrapper_limits(optim_wrapper(paramwise_cfg=dict(
        bias_decay_mult=0.0)))


def test_the_tools_name_a_refused_argument_by_its_place_in_the_config():
    cfg = Config(dict(model=dict(
        type='ImageClassifier', backbone=dict(type='RandSACViT',
                                              arch='gigantic'))))
    with pytest.raises(UserError, match=re.escape(
            "config: model.backbone.arch='gigantic': give a name of")):
        check_model_builds(cfg)
    cfg = Config(dict(model=dict(type='RandSACViT', drop_path_rate=1.0,
                                 **TINY)))
    with pytest.raises(UserError, match=re.escape(
            'config: model.drop_path_rate=1.0: give a number in [0, 1)')):
        check_model_builds(cfg)


def test_mmpretrains_vision_transformer_is_checked_and_fused_adamw_guards():
    cfg = Config(dict(model=dict(type='ImageClassifier', backbone=dict(
        type='VisionTransformer', arch='deit-tiny', drop_path_rate=1.0))))
    with pytest.raises(UserError, match=re.escape(
            'config: model.backbone.drop_path_rate=1.0: give a number in '
            '[0, 1)')):
        check_model_builds(cfg)
    with pytest.raises(ArgumentOutOfRange, match=re.escape(
            'paramwise_cfg.layer_decay_rate=0.65: give it to a class that '
            'reads it: FusedAdamWConstructor ignores it')):
        FusedAdamWConstructor(dict(type='OptimWrapper', optimizer=dict(
            type='AdamW', lr=1e-3)), dict(layer_decay_rate=0.65))

