"""Pretraining checkpoint -> encoder-only checkpoint for mmseg / mmdet."""
import math

from mmpretrain.models.utils import resize_pos_embed

from .fit import LOOKS_LIKE, guess_kind, summarise_keys
from .loading import encoder_state

__all__ = ['ConversionError', 'convert_for_downstream']

REQUIRED = ('patch_embed.projection.weight', 'pos_embed',
            'layers.0.attn.qkv.weight', 'ln1.weight')
DROPPED_PREFIXES = {
    'neck.': 'pretraining decoder (not used downstream)',
    'head.': 'pixel prediction head (not used downstream)',
    'data_preprocessor.': 'normalisation buffers (set in the config)',
}


class ConversionError(ValueError):
    """The checkpoint is not a RandSAC pretraining checkpoint."""


def convert_for_downstream(state_dict, img_size, prefix='backbone.',
                           num_layers=12):
    """Keeps the encoder, with its position embeddings at ``img_size``.

    Args:
        state_dict (dict): the pretraining model's state dict.
        img_size (int): downstream input side (512 for ADE20K, 1024 COCO).
        prefix (str): encoder prefix, kept in the output keys so configs
            load with ``init_cfg=dict(type='Pretrained', prefix=prefix)``.
        num_layers (int): depth of the downstream encoder (the segmentation
            and detection configs' ViT-B: 12). A checkpoint with other
            layers, or a two-stream one (its ``query_token``), is refused:
            nothing downstream would load those keys.

    Returns:
        tuple: (new state dict, list of (key, 'kept'|'resized'|reason)).
    """
    kind = guess_kind(state_dict)
    if kind in ('classifier', 'segmentation', 'detection'):
        # Its head is no pixel predictor, and its encoder may carry what
        # only its task's model loads (a classifier's final norm, ln2).
        raise ConversionError(
            f'the checkpoint is {LOOKS_LIKE[kind]}, not a pretraining one: '
            'convert the RandSAC (or MAE) pretraining checkpoint the '
            'downstream configs start from')
    encoder = encoder_state(state_dict, prefix, ConversionError,
                            'the checkpoint')
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
    depth = 1 + max(int(k.split('.')[1]) for k in encoder
                    if k.startswith('layers.'))
    extra = sorted(k for k in encoder if k == 'query_token' or (
        k.startswith('layers.') and int(k.split('.')[1]) >= num_layers))
    if extra or depth < num_layers:
        raise ConversionError(
            f'the checkpoint has a {depth}-layer encoder'
            + (f' and {summarise_keys(extra)} that a {num_layers}-layer '
               'downstream encoder would not load (a deeper or two-stream '
               'pretraining config)' if extra else '')
            + f'; the downstream configs build {num_layers} layers: convert '
            'a checkpoint of their encoder, or give --num-layers and a '
            'config whose backbone matches')
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
            side = math.isqrt(pos.shape[1])
            if side * side != pos.shape[1]:
                raise ConversionError(f'pos_embed has {pos.shape[1]} tokens, '
                                      'not a square grid')
            # The interpolation VisionTransformer applies on load.
            value = resize_pos_embed(pos, (side, side), grid, 'bicubic', 0)
            report.append((prefix + key, f'resized {tuple(pos.shape)} -> '
                           f'{tuple(value.shape)} (bicubic, {grid[0]}x'
                           f'{grid[1]} tokens at {img_size} px)'))
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
