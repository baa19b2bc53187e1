"""Export a checkpoint's encoder to timm and to Hugging Face transformers.

Both exports compute our frozen feature, the average of the final-normed
patch tokens, from normalised images of the pretraining size:

- timm: ``model.safetensors`` and ``timm_model.json`` (the
  ``timm.create_model`` name and arguments: ``class_token``, ``global_pool
  ='avg'``, ``fc_norm=False``: the final norm on every token, then the
  average, as ours; ``num_classes=0``; and the normalisation);
- transformers: ``save_pretrained`` of a ``ViTModel`` when the encoder has
  a class token (MAE), else of an ``IJepaModel``, transformers' ViT
  without one (a ``ViTModel`` always prepends a class token, which every
  patch token would attend to: another function); plus
  ``preprocessor_config.json``. The feature is the mean of
  ``last_hidden_state`` over the patch tokens.

Files on disk only: no hub, no download. The tensors keep their values and
take the other library's names (``encoder_shape`` says what the other ViT
needs, ``timm_state_dict`` and ``hf_state_dict`` rename); torch only, the
model is given (``randsac_mm.apis.load_model`` builds it from a checkpoint).
"""
import json
import os
import os.path as osp

__all__ = ['encoder_shape', 'export_hf', 'export_timm', 'hf_state_dict',
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
        ``num_layers``, ``num_heads``, ``mlp_ratio``, ``class_token``.

    Raises:
        ValueError: a ViT these exports cannot express (layer scale, a
            non-square patch, pre-norm of the embeddings).
    """
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
    return dict(img_size=tuple(backbone.img_size), patch_size=kernel[0],
                embed_dims=backbone.embed_dims,
                num_layers=len(backbone.layers),
                num_heads=first.attn.num_heads,
                mlp_ratio=ffn.out_features / backbone.embed_dims,
                class_token=backbone.cls_token is not None)


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
    global_pool='avg', fc_norm=False)``."""
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
    shape = encoder_shape(model.backbone)
    state = timm_state_dict(model.backbone.state_dict(), shape)
    mean, std = _normalisation(cfg)
    kwargs = dict(img_size=list(shape['img_size']),
                  patch_size=shape['patch_size'],
                  embed_dim=shape['embed_dims'], depth=shape['num_layers'],
                  num_heads=shape['num_heads'], mlp_ratio=shape['mlp_ratio'],
                  class_token=shape['class_token'], global_pool='avg',
                  fc_norm=False, num_classes=0)
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
    shape = encoder_shape(model.backbone)
    h, w = shape['img_size']
    if h != w:
        raise ValueError(f'export to transformers: the ViT there needs a '
                         f'square image, the encoder takes {h}x{w}')
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
