"""What each value a config gives the model and optimizer builders may be,
checked before anything is built (``tools/train.py``'s checks, so
``--dry-run`` refuses what the run would).

A rate of 0 or 1.5, a negative learning rate or an unknown ``arch`` built
before: mmengine and mmpretrain take most numbers as given, so a
``layer_decay_rate`` of 0 froze the encoder in silence, a
``drop_path_rate`` of 1.0 gave NaN at the first iteration, and an unknown
``arch`` was an ``AssertionError`` without its key. Here each key of the
``model``, ``data_preprocessor`` and ``optim_wrapper`` trees is looked up
in ``VALUE_RULES`` (by its name, wherever it sits) and a value outside its
rule is refused in one line naming its place and what is allowed
(``model.backbone.drop_path_rate=1.0: give a number in [0, 1)``).

``NO_VALUE_RULE`` names, with the reason, the keys our configs set that
need no rule here (a flag, a name the build resolves and refuses itself, a
path another check reads); a test walks every config and fails for a key
in neither table. Keys a user adds that neither knows are left to their
class's build.
"""
import numbers

from .errors import UserError

__all__ = ['NO_VALUE_RULE', 'VALUE_RULES', 'check_config_values']


def _number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _each(rule):
    """A rule for a list or tuple whose every item follows ``rule``."""
    test, allowed = rule
    return (lambda v: isinstance(v, (list, tuple)) and len(v) > 0 and
            all(test(x) for x in v), f'a list of {allowed}s')


RATE = (lambda v: _number(v) and 0 <= v < 1, 'a number in [0, 1)')
FRACTION = (lambda v: _number(v) and 0 <= v <= 1, 'a number in [0, 1]')
POSITIVE = (lambda v: _number(v) and v > 0, 'a number above 0')
NON_NEGATIVE = (lambda v: _number(v) and v >= 0, 'a number of 0 or more')
COUNT = (lambda v: _int(v) and v >= 1, 'an integer of 1 or more')
SIZE = (lambda v: _int(v) and v >= 0, 'an integer of 0 or more')
# mmdet's "no limit" (-1) or a count.
LIMIT = (lambda v: _int(v) and v >= -1, 'an integer of -1 (no limit) or '
         'more')
BOOL = (lambda v: isinstance(v, bool), 'True or False')

# key: (test, what is allowed). A key's meaning is the same wherever it
# sits in our configs (a rate is a rate); where two classes read one name
# differently, the rule is what both allow.
VALUE_RULES = {
    # Rates and probabilities.
    'drop_path_rate': RATE, 'drop_rate': RATE, 'attn_drop_rate': RATE,
    'dropout_ratio': RATE, 'label_smooth_val': RATE, 'mask_ratio': (
        lambda v: _number(v) and 0 < v < 1, 'a number in (0, 1)'),
    'pos_fraction': FRACTION,
    # The optimizer.
    'lr': POSITIVE, 'weight_decay': NON_NEGATIVE, 'momentum': RATE,
    'betas': (lambda v: isinstance(v, (list, tuple)) and len(v) == 2 and
              all(_number(x) and 0 <= x < 1 for x in v),
              'two numbers in [0, 1)'),
    # Layer-wise decay: the rate for one layer closer to the input; 1 is
    # none, 0 would freeze every layer but the last.
    'layer_decay_rate': (lambda v: _number(v) and 0 < v <= 1,
                         'a number in (0, 1]'),
    'decay_mult': NON_NEGATIVE, 'bias_decay_mult': NON_NEGATIVE,
    'norm_decay_mult': NON_NEGATIVE, 'loss_weight': NON_NEGATIVE,
    'alpha': POSITIVE,
    # Thresholds on scores and overlaps.
    'iou_threshold': FRACTION, 'pos_iou_thr': FRACTION,
    'neg_iou_thr': FRACTION, 'min_pos_iou': FRACTION,
    'score_thr': FRACTION, 'mask_thr_binary': FRACTION,
    'ignore_iof_thr': (lambda v: _number(v) and (v == -1 or 0 <= v <= 1),
                       '-1 (none ignored) or a number in [0, 1]'),
    # Shapes and counts.
    'img_size': COUNT, 'patch_size': COUNT, 'embed_dims': COUNT,
    'num_layers': COUNT, 'num_heads': COUNT, 'feedforward_channels': COUNT,
    'mlp_ratio': POSITIVE, 'window_size': COUNT, 'num_classes': COUNT,
    'channels': COUNT, 'conv_out_channels': COUNT, 'fc_out_channels': COUNT,
    'feat_channels': COUNT, 'out_channels': COUNT, 'input_features': COUNT,
    'num_convs': SIZE, 'num_outs': COUNT, 'num_groups': COUNT,
    'output_size': COUNT, 'roi_feat_size': COUNT, 'mask_size': COUNT,
    'sampling_ratio': SIZE, 'num': COUNT, 'max_per_img': COUNT,
    'nms_pre': COUNT, 'min_bbox_size': SIZE, 'pad_size_divisor': COUNT,
    'neg_pos_ub': LIMIT, 'pos_weight': LIMIT, 'allowed_border': LIMIT,
    'frozen_stages': (lambda v: v == 'all' or (_int(v) and v >= -1),
                      "-1 (none frozen), a number of layers or 'all'"),
    'in_channels': (lambda v: COUNT[0](v) or _each(COUNT)[0](v),
                    'an integer of 1 or more, or a list of them'),
    'in_index': (lambda v: SIZE[0](v) or _each(SIZE)[0](v),
                 'an index, or a list of them'),
    'featmap_strides': _each(COUNT), 'strides': _each(COUNT),
    'pool_scales': _each(COUNT), 'out_indices': _each(
        (lambda v: _int(v), 'integer')),
    'scales': _each(POSITIVE), 'ratios': _each(POSITIVE),
    'target_stds': _each(POSITIVE),
    'mean': _each((_number, 'number')),
    'std': (lambda v: POSITIVE[0](v) or _each(POSITIVE)[0](v),
            'a number above 0, or a list of them'),
}

# key: why it has no rule here.
NO_VALUE_RULE = {
    'arch': 'a name of the backbone class\'s arch_zoo, or a dict of its '
            'shape: checked by check_config_values against the class',
    'checkpoint': 'a path: check_pretrained_init reads and fits it',
    'prefix': 'a key prefix: check_pretrained_init finds the keys under it',
    'constructor': 'a registry name: the optimizer build refuses another',
    'layer': 'module class names an initialiser looks for',
    'mode': 'a name the class checks (LabelSmoothLoss, Kaiming)',
    'dtype': 'AutocastOptimWrapper refuses another',
    'precision': 'AutocastOptimWrapper refuses another',
    'loss_scale': "AmpOptimWrapper's 'dynamic' or a number, checked by it",
    'out_type': 'a name VisionTransformer checks',
    'pos_embed_type': 'a name RandSACViT checks',
    'unused_checkpoint_keys': 'key names, matched when a checkpoint loads',
    'neck': 'None or a module config, built',
    'val': 'an initial value: any number',
    'bias': 'an initial value: any number',
    'target_means': 'offsets: any numbers',
    'pad_val': 'a pixel value: any number',
    'seg_pad_val': 'a label value: any number (255: ignored)',
    'size': 'a crop size: SegDataPreProcessor pads to it',
    'crop_size': 'a crop size, checked by the pipeline that crops',
    'stride': 'a sliding-window stride, used at test time by mmseg',
    # Flags.
    **dict.fromkeys(
        ('align_corners', 'add_gt_as_proposals', 'bgr_to_rgb', 'to_rgb',
         'concat_input', 'debug', 'final_norm', 'match_low_quality',
         'non_blocking', 'norm_pix', 'pad_mask', 'reg_class_agnostic',
         'requires_grad', 'skip_connection', 'use_mask', 'use_sigmoid',
         'with_cls_token', 'with_cp'),
        'a flag: True or False'),
}


def _arch_refusal(cls, arch):
    """What is wrong with ``arch`` for ``cls`` (a backbone with an
    ``arch_zoo``), or None."""
    zoo = getattr(cls, 'arch_zoo', None)
    if zoo is None or isinstance(arch, dict):
        return None
    if isinstance(arch, str) and arch.lower() in zoo:
        return None
    return (f"a name of {cls.__name__}'s arch_zoo ({', '.join(sorted(zoo))})"
            ' or a dict of embed_dims, num_layers, num_heads and '
            'feedforward_channels')


def _class_of(type_name):
    """The class a config ``type`` names in the current scope, or None."""
    if not isinstance(type_name, str):
        return type_name if isinstance(type_name, type) else None
    from mmengine.registry import MODELS
    # The registry of the current scope, as a build finds it.
    with MODELS.switch_scope_and_registry(None) as registry:
        return registry.get(type_name)


def _refusals(tree, path):
    """(place, value, what is allowed) of each value in ``tree`` outside
    its rule."""
    found = []
    if isinstance(tree, dict):
        for key, value in tree.items():
            place = f'{path}.{key}'
            if key == 'arch' and 'type' in tree:
                allowed = _arch_refusal(_class_of(tree['type']), value)
                if allowed:
                    found.append((place, value, allowed))
            elif key in VALUE_RULES and value is not None:
                test, allowed = VALUE_RULES[key]
                if not test(value):
                    found.append((place, value, allowed))
            if isinstance(value, (dict, list, tuple)):
                found += _refusals(value, place)
    elif isinstance(tree, (list, tuple)):
        for index, value in enumerate(tree):
            found += _refusals(value, f'{path}.{index}')
    return found


def check_config_values(cfg):
    """Refuses a value of ``cfg``'s model, data preprocessor or optimizer
    outside its rule (``VALUE_RULES``, and the backbone class's arch zoo),
    before anything is built.

    Raises:
        UserError: the first such value, its place and what is allowed.
    """
    from .builds import in_scope
    with in_scope(cfg):
        for part in ('model', 'data_preprocessor', 'optim_wrapper'):
            tree = cfg.get(part)
            found = _refusals(tree, part) if tree is not None else []
            if found:
                place, value, allowed = found[0]
                raise UserError(f'config: {place}={value!r}: give {allowed}')
