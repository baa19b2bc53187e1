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

Files on disk only: no hub, no download.
"""
import json
import os
import os.path as osp

import torch

from ..checkpoint.export import encoder_shape, hf_state_dict, timm_state_dict
from .config import build_model

__all__ = ['export_hf', 'export_timm', 'load_model']

# timm's registered ViT whose defaults the exported arguments override.
TIMM_BASE_MODEL = 'vit_base_patch16_224'


def load_model(checkpoint, config=None):
    """The model of a pretraining or fine-tuning checkpoint, weights loaded.

    Args:
        checkpoint (str): an mmengine checkpoint.
        config (str | None): its config (default: the one mmengine stored
            in the checkpoint).

    Returns:
        tuple: (model in eval mode, its mmengine.Config).
    """
    from mmengine.config import Config

    from ..checkpoint.loading import stored_config
    state = torch.load(checkpoint, map_location='cpu')
    cfg = Config.fromfile(config) if config else stored_config(state)
    if cfg is None:
        raise ValueError(f'{checkpoint} stores no config: give --config')
    model = build_model(cfg, init=False)
    model.load_state_dict(state.get('state_dict', state), strict=True)
    return model.eval(), cfg


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
