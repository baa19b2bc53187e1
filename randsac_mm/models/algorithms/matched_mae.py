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

__all__ = ['mae_matched_to_randsac']

# mmpretrain's MAE recipe (its mae_vit-base-p16 config).
MAE_INIT = [dict(type='Xavier', layer='Linear', distribution='uniform'),
            dict(type='Constant', layer='LayerNorm', val=1.0, bias=0.0)]
ENCODER_KEYS = ('arch', 'img_size', 'patch_size')


def _defaults(cls):
    return {name: p.default for name, p in
            inspect.signature(cls.__init__).parameters.items()
            if p.default is not inspect.Parameter.empty}


def _check_type(part, cfg, expected):
    if cfg is None or cfg.get('type') != expected:
        got = None if cfg is None else cfg.get('type')
        raise ValueError(
            f'MAEMatchedToRandSAC: {part} must be a {expected} config (the '
            f'RandSAC model the MAE is matched to), got type {got!r}; the '
            'two-stream variant has no decoder to match')


@MODELS.register_module(name='MAEMatchedToRandSAC')
def mae_matched_to_randsac(backbone, neck=None, head=None, mask_ratio=0.75,
                           data_preprocessor=None, init_cfg=MAE_INIT):
    """mmpretrain's ``MAE`` with a RandSAC model's encoder and a decoder of
    its decoder's depth, width, heads and MLP ratio.

    Args:
        backbone (dict): a ``RandSACViT`` config; the MAE encoder
            (``MAEViT``) takes its ``arch``, ``img_size``, ``patch_size``
            and ``in_channels``.
        neck (dict): a ``RandSACDecoder`` config; ``MAEPretrainDecoder``
            takes its ``num_layers``, ``embed_dims`` (default the
            encoder's), ``num_heads`` and ``mlp_ratio``. MAE's decoder has
            no skip connection and no segment masks.
        head (dict): a ``RandSACPretrainHead`` config; ``MAEPretrainHead``
            takes its ``norm_pix``, and the MSE over masked patches.
        mask_ratio (float): MAE's share of masked patches (the paper: 0.75).

    Returns:
        MAE: built; the encoder's ``out_type`` is 'featmap' (the token map,
        as RandSACViT gives), so frozen evaluations read the same features.
    """
    _check_type('backbone', backbone, 'RandSACViT')
    _check_type('neck', neck, 'RandSACDecoder')
    _check_type('head', head, 'RandSACPretrainHead')
    channels = backbone.get('in_channels', 3)
    if channels != 3:  # MAEViT and MAEPretrainHead take RGB only
        raise ValueError(f'MAEMatchedToRandSAC: backbone.in_channels={channels}'
                         "; mmpretrain's MAE takes RGB images (3) only")
    encoder = MODELS.build(dict(
        type='MAEViT', mask_ratio=mask_ratio, out_type='featmap',
        **{k: backbone[k] for k in ENCODER_KEYS if k in backbone}))
    patch_size = encoder.patch_embed.projection.kernel_size[0]
    decoder = dict(_defaults(RandSACDecoder), **neck)
    target = dict(_defaults(RandSACPretrainHead), **head)
    return MAE(
        backbone=encoder,
        neck=dict(type='MAEPretrainDecoder',
                  num_patches=encoder.num_patches, patch_size=patch_size,
                  in_chans=channels, embed_dim=encoder.embed_dims,
                  decoder_embed_dim=decoder['embed_dims'] or
                  encoder.embed_dims,
                  decoder_depth=decoder['num_layers'],
                  decoder_num_heads=decoder['num_heads'],
                  mlp_ratio=decoder['mlp_ratio']),
        head=dict(type='MAEPretrainHead', norm_pix=target['norm_pix'],
                  patch_size=patch_size,
                  loss=dict(type='PixelReconstructionLoss', criterion='L2')),
        data_preprocessor=data_preprocessor, init_cfg=init_cfg)
