"""Every config, parsed once: every value it gives the model and optimizer
builders has a rule, checked before anything is built
(randsac_mm.cli.config_values: one walk over every key, which fails for a
key with no rule and no reason to need none), and every training config
carries the run's protections."""
import glob
import os.path as osp

import pytest
from mmengine.config import Config

import randsac_mm.registration  # noqa: F401  (the classes an arch names)
from randsac_mm.cli.config_values import (
    NO_VALUE_RULE,
    VALUE_RULES,
    check_config_values,
)
from randsac_mm.cli.errors import UserError

from ..conftest import REPO_ROOT

CONFIGS = sorted(
    p for p in glob.glob(osp.join(REPO_ROOT, 'configs', '**', '*.py'),
                         recursive=True) if '_base_' not in p)
PARTS = ('model', 'data_preprocessor', 'optim_wrapper')

# One value outside each rule: a rule without one fails below.
BAD = {
    'drop_path_rate': 1.0, 'drop_rate': -0.1, 'attn_drop_rate': 1.0,
    'dropout_ratio': 1.0, 'label_smooth_val': 1.0, 'mask_ratio': 0.0,
    'pos_fraction': 1.5, 'lr': -1e-3, 'weight_decay': -0.05,
    'momentum': 1.0, 'betas': (0.9, 1.0), 'layer_decay_rate': 0.0,
    'decay_mult': -1.0, 'bias_decay_mult': -1.0, 'norm_decay_mult': -1.0,
    'loss_weight': -1.0, 'alpha': 0.0, 'iou_threshold': 1.5,
    'pos_iou_thr': -0.1, 'neg_iou_thr': 2.0, 'min_pos_iou': 1.1,
    'score_thr': -0.5, 'mask_thr_binary': 1.5, 'ignore_iof_thr': 0.5j,
    'img_size': 0, 'patch_size': 0, 'embed_dims': 0, 'num_layers': 0,
    'num_heads': 0, 'feedforward_channels': 0, 'mlp_ratio': 0.0,
    'window_size': 0, 'num_classes': 0, 'channels': 0,
    'conv_out_channels': 0, 'fc_out_channels': 0, 'feat_channels': 0,
    'out_channels': 0, 'input_features': 0, 'num_convs': -1, 'num_outs': 0,
    'num_groups': 0, 'output_size': 0, 'roi_feat_size': 0, 'mask_size': 0,
    'sampling_ratio': -1, 'num': 0, 'max_per_img': 0, 'nms_pre': 0,
    'min_bbox_size': -1, 'pad_size_divisor': 0, 'neg_pos_ub': -2,
    'pos_weight': -2, 'allowed_border': -2, 'frozen_stages': 'some',
    'in_channels': [96, 0], 'in_index': -1, 'featmap_strides': [4, 0],
    'strides': [], 'pool_scales': [1, 0], 'out_indices': [1.5],
    'scales': [4, -1], 'ratios': [0.5, 0], 'target_stds': [0.1, 0],
    'mean': ['red'], 'std': [58.4, 0],
}


def config_keys(tree, path, found):
    """Every key of a config tree with its place: {key: [place, ...]}
    (``paramwise_cfg.custom_keys`` holds parameter names, not keys: only
    its values are walked)."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            if key != 'type':
                found.setdefault(key, []).append(f'{path}.{key}')
            if key == 'custom_keys':
                for name, settings in value.items():
                    config_keys(settings, f'{path}.{key}[{name!r}]', found)
            else:
                config_keys(value, f'{path}.{key}', found)
    elif isinstance(tree, (list, tuple)):
        for index, value in enumerate(tree):
            config_keys(value, f'{path}.{index}', found)
    return found


@pytest.fixture(scope='module')
def every_config():
    return {p: Config.fromfile(p) for p in CONFIGS}


def test_every_key_of_every_config_has_a_rule_or_a_reason(every_config):
    keys = {}
    for cfg in every_config.values():
        for part in PARTS:
            if cfg.get(part) is not None:
                config_keys(cfg[part], part, keys)
    # Keys whose value is a config built by a registry (or a list of such):
    # their own keys are walked.
    built = {k for k, places in keys.items() if all(
        _is_built(_at(every_config, p)) for p in places)}
    lacking = sorted(set(keys) - built - set(VALUE_RULES) -
                     set(NO_VALUE_RULE))
    assert not lacking, {k: keys[k][:2] for k in lacking}


def _is_built(value):
    return isinstance(value, dict) or (
        isinstance(value, (list, tuple)) and value and
        all(isinstance(v, dict) for v in value))


def _at(configs, place):
    """The value at ``place`` (``model.backbone.arch``) in any config that
    has it."""
    for cfg in configs.values():
        value = cfg
        try:
            for part in place.split('.'):
                value = value[int(part)] if isinstance(value, (list, tuple)) \
                    else value[part]
            return value
        except (KeyError, IndexError, TypeError, ValueError):
            continue
    return None


def test_every_config_passes_its_rules(every_config):
    for path, cfg in every_config.items():
        check_config_values(cfg)


def test_every_training_config_keeps_a_checkpoint_and_stops_on_signals(
        every_config):
    """docs/guarantees.md: every config that trains (pretraining, probes,
    fine-tunes, UperNet, Mask R-CNN) checkpoints with AtomicCheckpointHook
    through the atomic backend (its default) and stops on SIGTERM and
    SIGUSR1 with PreemptionHook."""
    for path, cfg in every_config.items():
        if cfg.get('train_cfg') is None:
            continue  # a config that does not train
        checkpoint = cfg.default_hooks.checkpoint
        assert checkpoint.type == 'AtomicCheckpointHook', path
        assert checkpoint.get('backend_args') is None, path
        assert 'PreemptionHook' in {h.type for h in cfg.custom_hooks}, path


def test_no_key_has_both_a_rule_and_a_reason():
    assert not set(VALUE_RULES) & set(NO_VALUE_RULE)


@pytest.mark.parametrize('key', sorted(VALUE_RULES))
def test_each_rule_refuses_a_value_naming_its_place(key):
    assert key in BAD, f'give {key} a value its rule refuses'
    cfg = Config(dict(optim_wrapper=dict(
        type='OptimWrapper', paramwise_cfg={key: BAD[key]})))
    with pytest.raises(UserError, match=(
            rf'^config: optim_wrapper\.paramwise_cfg\.{key}='
            rf'{BAD[key]!r}: give '.replace('(', r'\(').replace(')', r'\)')
            .replace('[', r'\[').replace(']', r'\]'))):
        check_config_values(cfg)


def test_an_unknown_arch_names_the_key_and_the_zoo():
    cfg = Config(dict(model=dict(type='RandSAC', backbone=dict(
        type='RandSACViT', arch='gigantic'))))
    with pytest.raises(UserError) as refused:
        check_config_values(cfg)
    message = str(refused.value)
    assert message.startswith("config: model.backbone.arch='gigantic': give "
                              "a name of RandSACViT's arch_zoo (b, base, ")
    assert message.endswith('or a dict of embed_dims, num_layers, num_heads '
                            'and feedforward_channels')
    cfg.model.backbone.arch = 'Deit-Small'  # the zoo's names, any case
    check_config_values(cfg)
