"""RandSAC ViT with a 4-scale feature pyramid, for UperNet and Mask R-CNN."""
import torch
from mmcv.cnn import build_norm_layer
from mmdet.registry import MODELS as MMDET_MODELS
from mmpretrain.registry import MODELS as MMPRETRAIN_MODELS
from mmseg.registry import MODELS as MMSEG_MODELS
from torch import nn

from ..models.backbones import RandSACViT

__all__ = ['RandSACViTPyramid']


def _rescale(embed_dims, scale, norm_cfg):
    """stride-16 features -> stride 16 / scale (scale in 4, 2, 1, 0.5)."""
    if scale == 4:
        return nn.Sequential(
            nn.ConvTranspose2d(embed_dims, embed_dims, 2, stride=2),
            build_norm_layer(norm_cfg, embed_dims)[1], nn.GELU(),
            nn.ConvTranspose2d(embed_dims, embed_dims, 2, stride=2))
    if scale == 2:
        return nn.ConvTranspose2d(embed_dims, embed_dims, 2, stride=2)
    if scale == 1:
        return nn.Identity()
    if scale == 0.5:
        return nn.MaxPool2d(kernel_size=2, stride=2)
    raise ValueError(f'pyramid scales must be among (4, 2, 1, 0.5), got '
                     f'{scale}')


@MMSEG_MODELS.register_module()
@MMDET_MODELS.register_module()
@MMPRETRAIN_MODELS.register_module()
class RandSACViTPyramid(RandSACViT):
    """The pretrained encoder, tapped at four blocks and rescaled to strides
    4, 8, 16 and 32 (the paper's BEiT setting for UperNet; for Mask R-CNN,
    "the 12 blocks divided into 4 groups", whose last outputs are these).

    Parameters of the encoder keep VisionTransformer's names, so a RandSAC
    pretraining checkpoint initialises it with ``prefix='backbone.'``; the
    pyramid convolutions (``fpn1``..``fpn4``) start from scratch. Inputs of
    any size divisible by the patch size are accepted (position embeddings
    are interpolated).

    Args:
        out_indices (tuple[int]): blocks whose outputs feed the pyramid,
            default (3, 5, 7, 11).
        scales (tuple[float]): rescaling of each, default (4, 2, 1, 0.5).
        norm_cfg (dict): norm inside the x4 upsampling (BN for UperNet,
            as BEiT; SyncBN on multi-GPU runs).
        **kwargs: RandSACViT / VisionTransformer arguments.
    """

    # Not in pretraining checkpoints: trained from scratch downstream.
    NEW_MODULE_PREFIXES = ('fpn', )

    def __init__(self,
                 out_indices=(3, 5, 7, 11),
                 scales=(4, 2, 1, 0.5),
                 norm_cfg=dict(type='BN'),
                 **kwargs):
        if len(out_indices) != len(scales):
            raise ValueError(f'out_indices {out_indices} and scales {scales} '
                             'must have the same length')
        depth = self._depth(kwargs.get('arch', 'base'))
        if depth and any(not 0 <= i < depth for i in out_indices):
            raise ValueError(
                f'RandSACViTPyramid: out_indices {tuple(out_indices)} must '
                f'be blocks of the encoder, whose arch has {depth} layers '
                f'(0 to {depth - 1})')
        super().__init__(out_indices=list(out_indices), out_type='featmap',
                         **kwargs)
        for i, scale in enumerate(scales, start=1):
            self.add_module(f'fpn{i}', _rescale(self.embed_dims, scale,
                                                norm_cfg))
        self.num_scales = len(scales)

    @classmethod
    def _depth(cls, arch):
        """Number of layers of a VisionTransformer ``arch`` (name or
        dict); unknown names are left to VisionTransformer to refuse."""
        if isinstance(arch, str):
            return cls.arch_zoo.get(arch.lower(), {}).get('num_layers')
        return arch.get('num_layers')

    def forward(self, x):
        """[B, 3, H, W] -> tuple of [B, C, H / s, W / s], s = 4, 8, 16, 32."""
        features = super().forward(x)
        return tuple(getattr(self, f'fpn{i + 1}')(f)
                     for i, f in enumerate(features))

    def init_weights(self):
        super().init_weights()
        for m in self.modules():
            if isinstance(m, nn.ConvTranspose2d):
                torch.nn.init.trunc_normal_(m.weight, std=0.02)
                torch.nn.init.zeros_(m.bias)
