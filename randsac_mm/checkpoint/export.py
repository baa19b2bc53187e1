"""Export a checkpoint's encoder to timm and to Hugging Face transformers.

Both exports compute the encoder's feature as the model computes it
(:func:`feature_spec`): for a pretraining model and an encoder with
``out_type='featmap'`` (RandSAC's, the probes' and fine-tuning's), the
average of the final-normed patch tokens; for mmpretrain's
``out_type='avg_featmap'``, the average, then the norm ``ln2``; for
``out_type='cls_token'``, the final-normed class token. What the other
library cannot compute is refused (``ValueError``, naming why) rather than
exported as another feature:

- timm: ``model.safetensors`` and ``timm_model.json`` (the
  ``timm.create_model`` name and arguments: ``class_token``,
  ``global_pool`` 'avg' or 'token', ``fc_norm``: the norm after the
  average (``ln2``) or ``final_norm``: the norm on every token (``ln1``);
  ``num_classes=0``; and the normalisation). timm's ViT has one of the two
  norms, never both: an encoder with ``final_norm=True`` and
  ``out_type='avg_featmap'`` is refused;
- transformers: ``save_pretrained`` of a ``ViTModel`` when the encoder has
  a class token (MAE), else of an ``IJepaModel``, transformers' ViT
  without one (a ``ViTModel`` always prepends a class token, which every
  patch token would attend to: another function); plus
  ``preprocessor_config.json``. The feature is the mean of
  ``last_hidden_state`` over the patch tokens (``last_hidden_state[:, 0]``
  for ``out_type='cls_token'``). Its ViT always norms every token and has
  no norm after pooling: an encoder without ``final_norm`` or with
  ``out_type='avg_featmap'`` is refused.

Files on disk only: no hub, no download. The tensors keep their values and
take the other library's names (``encoder_shape`` says what the other ViT
needs, ``timm_state_dict`` and ``hf_state_dict`` rename); torch only, the
model is given (``randsac_mm.apis.load_model`` builds it from a checkpoint).
The neck and head (a classifier's, a probe's BatchNorm) are not exported.
"""
import json
import os
import os.path as osp

__all__ = ['check_exportable', 'describe_feature', 'encoder_shape',
           'export_hf', 'export_timm', 'feature_spec', 'hf_state_dict',
           'timm_state_dict']

# timm's registered ViT whose defaults the exported arguments override.
TIMM_BASE_MODEL = 'vit_base_patch16_224'


def encoder_shape(backbone):
    """What a ViT of another library needs to rebuild ``backbone``.

    Args:
        backbone: an mmpretrain ``VisionTransformer`` (``RandSACViT``,
            ``MAEViT``, ...).

    Returns:
        dict: ``img_size`` (h, w), ``patch_size``, ``embed_dims``,
        ``num_layers``, ``num_heads``, ``mlp_ratio``, ``class_token``, and
        the feature, :func:`feature_spec`'s ``pool``, ``token_norm`` and
        ``pooled_norm``.

    Raises:
        ValueError: a ViT these exports cannot express (not a
            VisionTransformer, layer scale, a non-square patch, pre-norm of
            the embeddings, attention without bias, norms other than
            LayerNorm with eps 1e-6, an activation other than exact GELU,
            a feature from an inner layer).
    """
    from torch import nn

    # mmpretrain's VisionTransformer, by what it has (this package imports
    # torch and mmengine only).
    if not all(hasattr(backbone, name) for name in (
            'patch_embed', 'pos_embed', 'layers', 'pre_norm', 'out_type',
            'out_indices')):
        raise ValueError(f'export: the encoder is a {type(backbone).__name__}'
                         "; the exports take mmpretrain's VisionTransformer "
                         '(RandSACViT, MAEViT)')
    first = backbone.layers[0]
    ffn = first.ffn.layers[0][0]
    scales = [first.attn.gamma1, getattr(first.ffn, 'gamma2', None)]
    if any(s is not None and type(s).__name__ != 'Identity' for s in scales):
        raise ValueError('export: layer scale is not supported')
    kernel = backbone.patch_embed.projection.kernel_size
    if kernel[0] != kernel[1]:
        raise ValueError(f'export: patches must be square, got {kernel}')
    if type(backbone.pre_norm).__name__ != 'Identity':
        raise ValueError('export: a norm before the first block (pre_norm) '
                         'is not supported')
    if first.attn.qkv.bias is None:
        raise ValueError('export: attention without bias (qkv_bias=False) '
                         'is not supported; the exported ViTs have one')
    for name, module in backbone.named_modules():
        # BatchNorm and InstanceNorm (the norms with running statistics).
        if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d,
                               nn.SyncBatchNorm, nn.InstanceNorm1d,
                               nn.InstanceNorm2d, nn.InstanceNorm3d)) or (
                isinstance(module, nn.LayerNorm) and module.eps != 1e-6):
            raise ValueError(
                f'export: norm {name} is {module}; the exported ViTs take '
                'LayerNorm with eps 1e-6 (norm_cfg=dict(type=\'LN\', '
                'eps=1e-6))')
    activation = first.ffn.layers[0][1]
    if not (isinstance(activation, nn.GELU)
            and activation.approximate == 'none'):
        raise ValueError(f'export: the activation is {activation}; the '
                         'exported ViTs take exact GELU')
    last = len(backbone.layers) - 1
    if list(backbone.out_indices)[-1:] not in ([last], [-1]):
        raise ValueError(
            f'export: the feature comes from layer(s) {backbone.out_indices}'
            f'; the exported ViTs give the last one\'s ({last}): set '
            'out_indices=-1')
    return dict(img_size=tuple(backbone.img_size), patch_size=kernel[0],
                embed_dims=backbone.embed_dims,
                num_layers=len(backbone.layers),
                num_heads=first.attn.num_heads,
                mlp_ratio=ffn.out_features / backbone.embed_dims,
                class_token=backbone.cls_token is not None,
                **feature_spec(backbone))


def feature_spec(backbone):
    """The feature the encoder gives, as its ``out_type`` and
    ``final_norm`` make it (mmpretrain's ``VisionTransformer.
    _format_output``; a pretraining model and a classifier's
    GlobalAveragePooling average the 'featmap' and 'raw' tokens).

    Returns:
        dict: ``pool``: 'avg' (the patch tokens averaged) or 'token' (the
        class token); ``token_norm``: the final norm ``ln1`` on every
        token (``final_norm``); ``pooled_norm``: the norm ``ln2`` on the
        average (``out_type='avg_featmap'``).
    """
    out_type = getattr(backbone, 'out_type', 'featmap')
    return dict(pool='token' if out_type == 'cls_token' else 'avg',
                token_norm=bool(getattr(backbone, 'final_norm', True)),
                pooled_norm=out_type == 'avg_featmap')


def describe_feature(shape, target):
    """The exported model's feature, in words, for ``target`` 'timm' or
    'hf'."""
    if target == 'timm':
        return 'model(images), [B, C]'
    if shape['pool'] == 'token':
        return 'last_hidden_state[:, 0], the class token'
    return ('last_hidden_state[:, 1:].mean(1)' if shape['class_token']
            else 'last_hidden_state.mean(1)') + ', the averaged patch tokens'


def _timm_feature(shape):
    """timm's ``global_pool``, ``fc_norm`` and ``final_norm`` for the
    feature, or ValueError."""
    if shape['token_norm'] and shape['pooled_norm']:
        raise ValueError(
            'export to timm: this encoder norms every token (final_norm='
            "True, ln1) and their average (out_type='avg_featmap', ln2); "
            "timm's ViT has one of the two norms, never both, so it would "
            'give another feature. Exportable: an encoder with one of them '
            "(out_type='featmap' or 'cls_token', or final_norm=False)")
    return dict(global_pool=shape['pool'], fc_norm=shape['pooled_norm'],
                final_norm=shape['token_norm'] or shape['pooled_norm'])


def _check_hf_feature(shape):
    """ValueError when transformers' ViT cannot give the feature."""
    instead = '' if shape['token_norm'] and shape['pooled_norm'] else \
        ' Export it to timm (--to timm) instead'
    if shape['pooled_norm']:
        raise ValueError(
            "export to transformers: this encoder norms the averaged tokens "
            "(out_type='avg_featmap', ln2); transformers' ViT has no norm "
            'after pooling (its layernorm norms every token), so it would '
            f'give another feature.{instead}')
    if not shape['token_norm']:
        raise ValueError(
            'export to transformers: this encoder has no final norm '
            "(final_norm=False); transformers' ViT always norms the last "
            f'hidden state, so it would give another feature.{instead}')


def check_exportable(backbone, target):
    """Raises ValueError (naming why) unless ``backbone``'s feature can be
    exported to ``target`` ('timm' or 'hf'); returns its
    :func:`encoder_shape`."""
    shape = encoder_shape(backbone)
    if target == 'timm':
        _timm_feature(shape)
    else:
        _check_hf_feature(shape)
        h, w = shape['img_size']
        if h != w:
            raise ValueError(f'export to transformers: the ViT there needs '
                             f'a square image, the encoder takes {h}x{w}')
    return shape


def _layer_entries(state, i):
    """Layer ``i``'s tensors, by role."""
    p = f'layers.{i}.'
    return dict(
        norm1=(state[p + 'ln1.weight'], state[p + 'ln1.bias']),
        qkv=(state[p + 'attn.qkv.weight'], state[p + 'attn.qkv.bias']),
        proj=(state[p + 'attn.proj.weight'], state[p + 'attn.proj.bias']),
        norm2=(state[p + 'ln2.weight'], state[p + 'ln2.bias']),
        fc1=(state[p + 'ffn.layers.0.0.weight'],
             state[p + 'ffn.layers.0.0.bias']),
        fc2=(state[p + 'ffn.layers.1.weight'], state[p + 'ffn.layers.1.bias']))


def _pair(out, prefix, tensors):
    out[prefix + '.weight'], out[prefix + '.bias'] = tensors


def timm_state_dict(state, shape):
    """``state`` (the backbone's own state dict) under the names of timm's
    ``VisionTransformer(class_token=shape['class_token'], num_classes=0,
    **_timm_feature(shape))``: the final norm ``ln1`` as ``norm``, or
    ``ln2``, the norm after the average, as ``fc_norm``."""
    out = {'pos_embed': state['pos_embed']}
    if shape['class_token']:
        out['cls_token'] = state['cls_token']
    _pair(out, 'patch_embed.proj', (state['patch_embed.projection.weight'],
                                    state['patch_embed.projection.bias']))
    for i in range(shape['num_layers']):
        layer = _layer_entries(state, i)
        for ours, theirs in (('norm1', 'norm1'), ('qkv', 'attn.qkv'),
                             ('proj', 'attn.proj'), ('norm2', 'norm2'),
                             ('fc1', 'mlp.fc1'), ('fc2', 'mlp.fc2')):
            _pair(out, f'blocks.{i}.{theirs}', layer[ours])
    if shape.get('pooled_norm'):
        _pair(out, 'fc_norm', (state['ln2.weight'], state['ln2.bias']))
    elif shape.get('token_norm', True):
        _pair(out, 'norm', (state['ln1.weight'], state['ln1.bias']))
    return {k: v.contiguous() for k, v in out.items()}


def hf_state_dict(state, shape):
    """``state`` under the names of transformers' ``ViTModel`` (with a
    class token) or ``IJepaModel`` (the same ViT without one), as
    transformers 4.47 names them: ``embeddings.*``, ``encoder.layer.<i>.*``
    with separate query, key and value projections, ``layernorm``."""
    out = {'embeddings.position_embeddings': state['pos_embed']}
    if shape['class_token']:
        out['embeddings.cls_token'] = state['cls_token']
    _pair(out, 'embeddings.patch_embeddings.projection',
          (state['patch_embed.projection.weight'],
           state['patch_embed.projection.bias']))
    for i in range(shape['num_layers']):
        layer = _layer_entries(state, i)
        p = f'encoder.layer.{i}.'
        weights = layer['qkv'][0].chunk(3, dim=0)
        biases = layer['qkv'][1].chunk(3, dim=0)
        for name, weight, bias in zip(('query', 'key', 'value'), weights,
                                      biases):
            _pair(out, p + f'attention.attention.{name}', (weight, bias))
        _pair(out, p + 'attention.output.dense', layer['proj'])
        _pair(out, p + 'layernorm_before', layer['norm1'])
        _pair(out, p + 'layernorm_after', layer['norm2'])
        _pair(out, p + 'intermediate.dense', layer['fc1'])
        _pair(out, p + 'output.dense', layer['fc2'])
    _pair(out, 'layernorm', (state['ln1.weight'], state['ln1.bias']))
    return {k: v.contiguous() for k, v in out.items()}


def _normalisation(cfg):
    """mean and std on the 0..1 scale, as timm and transformers give them."""
    pre = cfg.get('data_preprocessor') or cfg.model.get('data_preprocessor')
    mean = [m / 255 for m in pre.get('mean', [0, 0, 0])]
    std = [s / 255 for s in pre.get('std', [255, 255, 255])]
    return mean, std


def export_timm(model, cfg, out_dir):
    """Writes ``model.safetensors`` and ``timm_model.json``; returns the
    ``timm.create_model`` keyword arguments."""
    from safetensors.torch import save_file
    shape = check_exportable(model.backbone, 'timm')
    state = timm_state_dict(model.backbone.state_dict(), shape)
    mean, std = _normalisation(cfg)
    feature = _timm_feature(shape)
    if feature['final_norm']:
        del feature['final_norm']  # timm's default; older timm lacks it
    kwargs = dict(img_size=list(shape['img_size']),
                  patch_size=shape['patch_size'],
                  embed_dim=shape['embed_dims'], depth=shape['num_layers'],
                  num_heads=shape['num_heads'], mlp_ratio=shape['mlp_ratio'],
                  class_token=shape['class_token'], num_classes=0, **feature)
    os.makedirs(out_dir, exist_ok=True)
    save_file(state, osp.join(out_dir, 'model.safetensors'))
    with open(osp.join(out_dir, 'timm_model.json'), 'w') as f:
        json.dump(dict(model_name=TIMM_BASE_MODEL, kwargs=kwargs,
                       pretrained_cfg=dict(mean=mean, std=std,
                                           input_size=[3, *shape['img_size']
                                                       ])), f, indent=2)
    return kwargs


def export_hf(model, cfg, out_dir):
    """Writes a transformers model directory (``config.json``,
    ``model.safetensors``, ``preprocessor_config.json``); returns the
    transformers model."""
    from transformers import (
        IJepaConfig,
        IJepaModel,
        ViTConfig,
        ViTImageProcessor,
        ViTModel,
    )
    shape = check_exportable(model.backbone, 'hf')
    h, w = shape['img_size']
    config_cls, model_cls = (ViTConfig, ViTModel) if shape['class_token'] \
        else (IJepaConfig, IJepaModel)
    config = config_cls(
        hidden_size=shape['embed_dims'], num_hidden_layers=shape['num_layers'],
        num_attention_heads=shape['num_heads'],
        intermediate_size=round(shape['mlp_ratio'] * shape['embed_dims']),
        hidden_act='gelu', layer_norm_eps=1e-6, image_size=h,
        patch_size=shape['patch_size'], num_channels=3, qkv_bias=True,
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    exported = model_cls(config, add_pooling_layer=False)
    exported.load_state_dict(hf_state_dict(model.backbone.state_dict(),
                                           shape), strict=True)
    exported.save_pretrained(out_dir)
    mean, std = _normalisation(cfg)
    ViTImageProcessor(do_resize=True, size=dict(height=h, width=w),
                      image_mean=mean, image_std=std).save_pretrained(out_dir)
    return exported.eval()
