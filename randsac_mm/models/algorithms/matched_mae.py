"""mmpretrain's MAE shaped after a RandSAC config: the paper's MAE baseline.

The paper's Table "Low-data pre-training" compares RandSAC with MAE (75%
masking) whose decoder has "the same depth, attention head, and dimension"
as RandSAC's. ``MAEMatchedToRandSAC`` reads those from a RandSAC model
config, so an MAE config is the RandSAC config it is compared with plus
one line, and the match cannot drift:

    model = dict(type='MAEMatchedToRandSAC')   # on top of a RandSAC model

It returns mmpretrain's own ``MAE`` (its checkpoints are MAE checkpoints).
"""
import inspect

from mmpretrain.models import MAE
from mmpretrain.registry import MODELS

from ..heads import RandSACPretrainHead
from ..necks import RandSACDecoder
from .derived_shapes import decoder_shapes, fill_from_backbone, head_shapes

__all__ = ['mae_matched_to_randsac']

# mmpretrain's MAE recipe (its mae_vit-base-p16 config).
MAE_INIT = [dict(type='Xavier', layer='Linear', distribution='uniform'),
            dict(type='Constant', layer='LayerNorm', val=1.0, bias=0.0)]
# RandSAC settings that do not change the model MAE is matched to: how the
# backbone runs or is initialised on its own (MAE initialises itself), and
# the decoder's skip connection, which MAE's decoder does not have.
IGNORED = dict(
    backbone=('type', 'out_type', 'with_cp', 'init_cfg', 'frozen_stages',
              'unused_checkpoint_keys', 'final_norm'),
    neck=('type', 'skip_connection', 'with_cp', 'init_cfg'),
    head=('type', 'init_cfg'))
# RandSAC settings MAE has only one value of.
FIXED = dict(backbone=dict(pos_embed_type='sincos', in_channels=3),
             neck=dict(pos_embed_type='sincos', drop_path_rate=0.0))
# RandSACDecoder settings MAEPretrainDecoder takes (under its own names).
NECK_KEYS = ('num_layers', 'embed_dims', 'num_heads', 'mlp_ratio',
             'norm_cfg')


def _defaults(cls):
    return {name: p.default for name, p in
            inspect.signature(cls.__init__).parameters.items()
            if p.default is not inspect.Parameter.empty}


def _check_type(part, cfg, expected, two_stream):
    if cfg is None or cfg.get('type') != expected:
        got = None if cfg is None else cfg.get('type')
        hint = '; the two-stream variant has no decoder to match' \
            if two_stream else ''
        raise ValueError(
            f'MAEMatchedToRandSAC: {part} must be a {expected} config (the '
            f'RandSAC model the MAE is matched to), got type {got!r}{hint}')


def _check_fixed(part, cfg):
    for key, value in FIXED.get(part, {}).items():
        if cfg.get(key, value) != value:
            raise ValueError(
                f'MAEMatchedToRandSAC: {part}.{key}={cfg[key]!r}; '
                f"mmpretrain's MAE has {key}={value!r} only")


def _check_known(part, cfg, used):
    unknown = sorted(set(cfg) - set(used) - set(IGNORED[part]) -
                     set(FIXED.get(part, {})))
    if unknown:
        raise ValueError(
            f'MAEMatchedToRandSAC: {part} keys {unknown} have no counterpart '
            f"in mmpretrain's MAE; remove them or build MAE directly")


@MODELS.register_module(name='MAEMatchedToRandSAC')
def mae_matched_to_randsac(backbone, neck=None, head=None, mask_ratio=0.75,
                           attention=None, data_preprocessor=None,
                           init_cfg=MAE_INIT) -> MAE:
    """mmpretrain's ``MAE`` with a RandSAC model's encoder and a decoder of
    its decoder's depth, width, heads and MLP ratio.

    Args:
        backbone (dict): a ``RandSACViT`` config; ``MAEViT`` takes its
            ViT arguments (``arch``, ``img_size``, ``patch_size``,
            ``drop_path_rate``, ...). Images must be RGB and the token grid
            square (MAE's decoder embeds positions on a square).
        neck (dict): a ``RandSACDecoder`` config; ``MAEPretrainDecoder``
            takes its ``num_layers``, ``embed_dims`` (default the
            encoder's), ``num_heads``, ``mlp_ratio`` and ``norm_cfg``. Grid
            and encoder shapes it states must agree with the backbone, as
            for RandSAC. MAE's decoder has no skip connection and no
            segment masks.
        head (dict): a ``RandSACPretrainHead`` config; ``MAEPretrainHead``
            takes its ``norm_pix``, and the MSE over masked patches.
        mask_ratio (float): MAE's share of masked patches (the paper: 0.75).
        attention (None): RandSAC's attention kernel, which a RandSAC
            config may carry; MAE has no masked attention, so only None
            is accepted (another value is refused, not ignored).

    Returns:
        MAE: built; the encoder's ``out_type`` is 'featmap' (the token map
        without the class token, as RandSACViT gives).

    Raises:
        ValueError: a part of another type, a setting MAE does not have, or
            shapes that contradict the backbone; the message names it.
    """
    if attention is not None:
        raise ValueError(
            f'MAEMatchedToRandSAC: attention={attention!r} chooses RandSAC\'s '
            'masked-attention kernel, and MAE has no masked attention: '
            'remove it from model')
    two_stream = backbone.get('type') == 'RandSACTwoStreamViT'
    _check_type('backbone', backbone, 'RandSACViT', two_stream)
    _check_type('neck', neck, 'RandSACDecoder', two_stream)
    _check_type('head', head, 'RandSACPretrainHead', two_stream)
    for part, cfg in dict(backbone=backbone, neck=neck, head=head).items():
        _check_fixed(part, cfg)
    encoder_args = {k: v for k, v in backbone.items()
                    if k not in IGNORED['backbone'] and
                    k not in FIXED['backbone']}
    encoder = MODELS.build(dict(encoder_args, type='MAEViT',
                                mask_ratio=mask_ratio, out_type='featmap'))
    neck_shapes = decoder_shapes(encoder)
    neck = fill_from_backbone('neck', neck, neck_shapes)
    _check_known('neck', neck, NECK_KEYS + tuple(neck_shapes))
    decoder = dict(_defaults(RandSACDecoder), **neck)
    width = decoder['embed_dims'] or encoder.embed_dims
    target_shapes = head_shapes(encoder, width)
    patch_size = target_shapes['patch_size']
    grid = tuple(encoder.patch_resolution)
    whole = all(g * patch_size == side
                for g, side in zip(grid, encoder.img_size))
    if grid[0] != grid[1] or not whole:
        raise ValueError(
            'MAEMatchedToRandSAC: backbone.img_size='
            f'{backbone.get("img_size")} with patch_size {patch_size} gives '
            f"a {grid[0]}x{grid[1]} grid; mmpretrain's MAE needs a square "
            'grid of whole patches')
    head = fill_from_backbone('head', head, target_shapes)
    _check_known('head', head, ('norm_pix', ) + tuple(target_shapes))
    target = dict(_defaults(RandSACPretrainHead), **head)
    return MAE(
        backbone=encoder,
        neck=dict(type='MAEPretrainDecoder',
                  num_patches=encoder.num_patches, patch_size=patch_size,
                  in_chans=target_shapes['in_chans'],
                  embed_dim=encoder.embed_dims,
                  decoder_embed_dim=width,
                  decoder_depth=decoder['num_layers'],
                  decoder_num_heads=decoder['num_heads'],
                  mlp_ratio=decoder['mlp_ratio'],
                  norm_cfg=decoder['norm_cfg']),
        head=dict(type='MAEPretrainHead', norm_pix=target['norm_pix'],
                  patch_size=patch_size,
                  loss=dict(type='PixelReconstructionLoss', criterion='L2')),
        data_preprocessor=data_preprocessor, init_cfg=init_cfg)
