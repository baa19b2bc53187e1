"""Pretraining checkpoint -> encoder-only checkpoint for mmseg / mmdet."""
import math

import torch
import torch.nn.functional as F

__all__ = ['ConversionError', 'convert_for_downstream', 'resize_pos_embed']

REQUIRED = ('patch_embed.projection.weight', 'pos_embed',
            'layers.0.attn.qkv.weight', 'ln1.weight')
DROPPED_PREFIXES = {
    'neck.': 'pretraining decoder (not used downstream)',
    'head.': 'pixel prediction head (not used downstream)',
    'data_preprocessor.': 'normalisation buffers (set in the config)',
}


class ConversionError(ValueError):
    """The checkpoint is not a RandSAC pretraining checkpoint."""


def resize_pos_embed(pos_embed, grid):
    """Bicubic resize of [1, h*w, C] (square h = w) to [1, H*W, C]."""
    tokens, dims = pos_embed.shape[1], pos_embed.shape[2]
    side = math.isqrt(tokens)
    if side * side != tokens:
        raise ConversionError(f'pos_embed has {tokens} tokens, not a square '
                              'grid')
    if (side, side) == tuple(grid):
        return pos_embed
    x = pos_embed.reshape(1, side, side, dims).permute(0, 3, 1, 2)
    x = F.interpolate(x.float(), size=grid, mode='bicubic',
                      align_corners=False)
    return x.permute(0, 2, 3, 1).reshape(1, grid[0] * grid[1], dims)


def convert_for_downstream(state_dict, img_size, prefix='backbone.'):
    """Keeps the encoder, with its position embeddings at ``img_size``.

    Args:
        state_dict (dict): the pretraining model's state dict.
        img_size (int): downstream input side (512 for ADE20K, 1024 COCO).
        prefix (str): encoder prefix, kept in the output keys so configs
            load with ``init_cfg=dict(type='Pretrained', prefix=prefix)``.

    Returns:
        tuple: (new state dict, list of (key, 'kept'|'resized'|reason)).
    """
    encoder = {k[len(prefix):]: v for k, v in state_dict.items()
               if k.startswith(prefix)}
    if not encoder:
        starts = sorted({k.split('.', 1)[0] + '.' for k in state_dict})[:8]
        raise ConversionError(
            f'no encoder keys starting with {prefix!r} (keys start with '
            f'{starts}): not a RandSAC pretraining checkpoint')
    missing = [k for k in REQUIRED if k not in encoder]
    if missing:
        raise ConversionError(f'the encoder lacks {missing}: not a RandSAC '
                              'ViT checkpoint')
    dims = encoder['patch_embed.projection.weight'].shape[0]
    patch = encoder['patch_embed.projection.weight'].shape[-1]
    pos = encoder['pos_embed']
    if pos.dim() != 3 or pos.shape[-1] != dims:
        raise ConversionError(f'pos_embed has shape {tuple(pos.shape)}, '
                              f'expected [1, N, {dims}]')
    if encoder['layers.0.attn.qkv.weight'].shape != (3 * dims, dims):
        raise ConversionError(
            'layers.0.attn.qkv.weight has shape '
            f"{tuple(encoder['layers.0.attn.qkv.weight'].shape)}, expected "
            f'{(3 * dims, dims)}')
    if img_size % patch:
        raise ConversionError(f'img_size {img_size} is not a multiple of the '
                              f'patch size {patch}')
    report, out = [], {}
    if 'cls_token' in encoder:
        # RandSAC uses no class token; a checkpoint that has one also has
        # its position embedding first.
        report.append((prefix + 'cls_token', 'dropped: RandSAC backbones '
                       'average tokens and have no class token'))
        encoder.pop('cls_token')
        pos = pos[:, 1:]
    for key, value in encoder.items():
        if key == 'pos_embed':
            grid = (img_size // patch, img_size // patch)
            value = resize_pos_embed(pos, grid)
            report.append((prefix + key, f'resized {tuple(pos.shape)} -> '
                           f'{tuple(value.shape)} (bicubic, {grid[0]}x'
                           f'{grid[1]} tokens at {img_size} px)'))
        elif key == 'query_token':
            report.append((prefix + key, 'dropped: two-stream query token '
                           '(pretraining only)'))
            continue
        else:
            report.append((prefix + key, 'kept'))
        out[prefix + key] = value
    for key in state_dict:
        if not key.startswith(prefix):
            reason = next((r for p, r in DROPPED_PREFIXES.items()
                           if key.startswith(p)), 'dropped: not encoder')
            report.append((key, reason if reason.startswith('dropped')
                           else f'dropped: {reason}'))
    return out, report
