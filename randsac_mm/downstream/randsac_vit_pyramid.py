"""RandSAC ViT with a 4-scale feature pyramid, for UperNet and Mask R-CNN."""
import torch
from mmcv.cnn import build_norm_layer
from mmdet.registry import MODELS as MMDET_MODELS
from mmpretrain.models.utils import resize_pos_embed
from mmpretrain.registry import MODELS as MMPRETRAIN_MODELS
from mmseg.registry import MODELS as MMSEG_MODELS
from torch import nn

from ..models.backbones import RandSACViT
from ..models.utils import masked_encoder_layer

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


def window_mask(grid, size, device=None):
    """Attention within non-overlapping ``size`` x ``size`` token windows
    (those at the right and bottom edges smaller when ``size`` does not
    divide the grid).

    Args:
        grid (tuple[int, int]): token grid (h, w), raster order.

    Returns:
        torch.Tensor: bool [1, 1, h * w, h * w], True within a window.
    """
    rows = torch.arange(grid[0], device=device) // size
    cols = torch.arange(grid[1], device=device) // size
    per_row = -(-grid[1] // size)
    window = (rows[:, None] * per_row + cols[None, :]).flatten()
    return (window[:, None] == window[None, :])[None, None]


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
            as BEiT; SyncBN on multi-GPU runs; GroupNorm in the detection
            benchmark of Li et al. 2021).
        window_size (int | None): None: every block attends globally (the
            pretrained encoder as it is). An int r: the blocks that do not
            feed the pyramid attend within r x r token windows, the ones in
            ``out_indices`` globally (Li et al. 2021's ViT detector: r = 14,
            the pretraining grid). Computed as a masked full attention: the
            same result, no saving of compute or memory.
        **kwargs: RandSACViT / VisionTransformer arguments.
    """

    # Not in pretraining checkpoints: trained from scratch downstream.
    NEW_MODULE_PREFIXES = ('fpn', )

    def __init__(self,
                 out_indices=(3, 5, 7, 11),
                 scales=(4, 2, 1, 0.5),
                 norm_cfg=dict(type='BN'),
                 window_size=None,
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
        self.window_size = window_size

    @classmethod
    def _depth(cls, arch):
        """Number of layers of a VisionTransformer ``arch`` (name or
        dict); unknown names are left to VisionTransformer to refuse."""
        if isinstance(arch, str):
            return cls.arch_zoo.get(arch.lower(), {}).get('num_layers')
        return arch.get('num_layers')

    def forward(self, x):
        """[B, 3, H, W] -> tuple of [B, C, H / s, W / s], s = 4, 8, 16, 32."""
        features = super().forward(x) if self.window_size is None \
            else self._windowed_features(x)
        return tuple(getattr(self, f'fpn{i + 1}')(f)
                     for i, f in enumerate(features))

    def _windowed_features(self, x):
        """VisionTransformer.forward (no class token), with the blocks
        outside ``out_indices`` attending within windows."""
        x, grid = self.patch_embed(x)
        x = x + resize_pos_embed(self.pos_embed, self.patch_resolution, grid,
                                 mode=self.interpolate_mode,
                                 num_extra_tokens=0)
        x = self.pre_norm(self.drop_after_pos(x))
        windows = window_mask(grid, self.window_size, x.device)
        outs = []
        for i, layer in enumerate(self.layers):
            x = layer(x) if i in self.out_indices else \
                masked_encoder_layer(layer, x, windows)
            if i == len(self.layers) - 1:
                x = self.ln1(x)
            if i in self.out_indices:
                outs.append(self._format_output(x, grid))
        return outs

    def init_weights(self):
        super().init_weights()
        for m in self.modules():
            if isinstance(m, nn.ConvTranspose2d):
                torch.nn.init.trunc_normal_(m.weight, std=0.02)
                torch.nn.init.zeros_(m.bias)
