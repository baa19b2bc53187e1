"""RandSAC ViT with a 4-scale feature pyramid, for UperNet and Mask R-CNN.

It needs no mmseg, mmdet or compiled mmcv op (so a pretraining install can
run it, e.g. the GPU acceptance run): ``randsac_mm.downstream``
registers it into mmseg's and mmdet's registries.
"""
import torch
import torch.nn.functional as F
from mmcv.cnn import build_norm_layer
from mmpretrain.models.utils import resize_pos_embed
from mmpretrain.registry import MODELS
from torch import nn

from ..attention import DEFAULT_SDPA_BACKENDS, ModelAttention
from ..utils.segment_batch import MaskedAttention
from .randsac_vit import RandSACViT

__all__ = ['RandSACViTPyramid']


# The rescalings the pyramid can make of the encoder's token grid: ViTDet's
# and BEiT's (4, 2, 1, 0.5), and a coarser 0.25 for inputs of few tokens
# (the digit scenes' 16x16 grid, whose finest map needs no stride 1).
PYRAMID_SCALES = (4, 2, 1, 0.5, 0.25)


def _rescale(embed_dims, scale, norm_cfg):
    """Token grid [B, C, h, w] -> [B, C, h * scale, w * scale]."""
    if scale == 4:
        return nn.Sequential(
            nn.ConvTranspose2d(embed_dims, embed_dims, 2, stride=2),
            build_norm_layer(norm_cfg, embed_dims)[1], nn.GELU(),
            nn.ConvTranspose2d(embed_dims, embed_dims, 2, stride=2))
    if scale == 2:
        return nn.ConvTranspose2d(embed_dims, embed_dims, 2, stride=2)
    if scale == 1:
        return nn.Identity()
    if scale in (0.5, 0.25):
        return nn.MaxPool2d(kernel_size=int(1 / scale),
                            stride=int(1 / scale))
    raise ValueError(f'pyramid scales must be among {PYRAMID_SCALES}, got '
                     f'{scale}')


def window_partition(x, grid, size):
    """Cuts a token grid into ``size`` x ``size`` windows, one sequence each.

    The grid is padded at the right and bottom to a multiple of ``size``;
    a padded token is a key no query may attend to, so each window computes
    what it would alone (the edge windows are smaller).

    Args:
        x (torch.Tensor): [B, h * w, C], tokens in raster order.
        grid (tuple[int, int]): (h, w).
        size (int): window side r.

    Returns:
        tuple: windows [B * nh * nw, r * r, C] (batch-major, then window
        rows and columns) and the key mask bool [B * nh * nw, 1, 1, r * r]
        (True: a real token).
    """
    b, _, c = x.shape
    h, w = grid
    nh, nw = -(-h // size), -(-w // size)
    pad_h, pad_w = nh * size - h, nw * size - w
    x = F.pad(x.view(b, h, w, c), (0, 0, 0, pad_w, 0, pad_h))
    windows = x.view(b, nh, size, nw, size, c).permute(0, 1, 3, 2, 4, 5)
    real = torch.ones(h, w, dtype=torch.bool, device=x.device)
    real = F.pad(real, (0, pad_w, 0, pad_h)).view(nh, size, nw, size)
    real = real.permute(0, 2, 1, 3).reshape(1, nh * nw, size * size)
    return (windows.reshape(b * nh * nw, size * size, c),
            real.expand(b, -1, -1).reshape(b * nh * nw, 1, 1, size * size))


def window_merge(windows, grid, size):
    """The inverse of :func:`window_partition`: [B * nh * nw, r * r, C] ->
    [B, h * w, C], padding dropped."""
    h, w = grid
    nh, nw = -(-h // size), -(-w // size)
    c = windows.shape[-1]
    x = windows.view(-1, nh, nw, size, size, c).permute(0, 1, 3, 2, 4, 5)
    x = x.reshape(-1, nh * size, nw * size, c)[:, :h, :w]
    return x.reshape(-1, h * w, c)


@MODELS.register_module()
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
            distinct and in increasing order,
            default (3, 5, 7, 11).
        scales (tuple[float]): rescaling of each, default (4, 2, 1, 0.5);
            each one of ``PYRAMID_SCALES``.
        norm_cfg (dict): norm inside the x4 upsampling (BN for UperNet,
            as BEiT; SyncBN on multi-GPU runs; GroupNorm in the detection
            benchmark of Li et al. 2021).
        window_size (int | None): None: every block attends globally (the
            pretrained encoder as it is). An int r: the blocks that do not
            feed the pyramid attend within r x r token windows, the ones in
            ``out_indices`` globally (Li et al. 2021's ViT detector: r = 14,
            the pretraining grid). The windows are separate sequences
            (``window_partition``): attention costs r^4 per window instead
            of (h w)^2 per image.
        sdpa_backends (Sequence[str]): the SDPA backends the windowed
            blocks' masked attention may run on, most preferred first
            (``randsac_mm.models.attention.SDPAKernel``; 'cudnn' only where its
            check passes).
        **kwargs: RandSACViT / VisionTransformer arguments.
    """

    # Not in pretraining checkpoints: trained from scratch downstream.
    NEW_MODULE_PREFIXES = ('fpn', )

    def __init__(self,
                 out_indices=(3, 5, 7, 11),
                 scales=(4, 2, 1, 0.5),
                 norm_cfg=dict(type='BN'),
                 window_size=None,
                 sdpa_backends=DEFAULT_SDPA_BACKENDS,
                 **kwargs):
        # The windowed blocks' kernel (a bad list refused here).
        self.windowed_attention = ModelAttention('sdpa', sdpa_backends)
        if len(out_indices) != len(scales):
            raise ValueError(f'out_indices {out_indices} and scales {scales} '
                             'must have the same length')
        super().__init__(out_type='featmap', **kwargs)
        depth = self.num_layers
        if any(not 0 <= i < depth for i in out_indices):
            raise ValueError(
                f'RandSACViTPyramid: out_indices {tuple(out_indices)} must '
                f'be blocks of the encoder, whose arch has {depth} layers '
                f'(0 to {depth - 1})')
        # The encoder returns one map per tapped block, in block order: a
        # repeated or out-of-order tap would pair maps and scales wrongly.
        if list(out_indices) != sorted(set(out_indices)):
            raise ValueError(
                f'RandSACViTPyramid: out_indices {tuple(out_indices)} must '
                'be distinct blocks in increasing order (one map each, '
                'matched to scales in that order)')
        # Stricter than VisionTransformer's reading (no negative index):
        # set here, after the encoder is built with its default.
        self.out_indices = list(out_indices)
        for i, scale in enumerate(scales, start=1):
            self.add_module(f'fpn{i}', _rescale(self.embed_dims, scale,
                                                norm_cfg))
        self.num_scales = len(scales)
        self.window_size = window_size

    def forward(self, x):
        """[B, 3, H, W] -> tuple of [B, C, H / s, W / s], s = 4, 8, 16, 32."""
        features = super().forward(x) if self.window_size is None \
            else self._windowed_features(x)
        # VisionTransformer's feature maps are views of [B, h, w, C] tokens
        # (channels last in memory), and convolutions keep that layout.
        # mmcv's RoIAlign reads its input as contiguous [B, C, H, W]: on
        # such maps every RoI feature of Mask R-CNN was scrambled. Maps in
        # the standard layout from here on.
        return tuple(getattr(self, f'fpn{i + 1}')(f.contiguous())
                     for i, f in enumerate(features))

    def _windowed_features(self, x):
        """VisionTransformer.forward (no class token), with the blocks
        outside ``out_indices`` attending within windows."""
        kernel = self.windowed_attention.on(x.device)
        x, grid = self.patch_embed(x)
        x = x + resize_pos_embed(self.pos_embed, self.patch_resolution, grid,
                                 mode=self.interpolate_mode,
                                 num_extra_tokens=0)
        x = self.pre_norm(self.drop_after_pos(x))
        outs = []
        for i, layer in enumerate(self.layers):
            if i in self.out_indices:
                x = layer(x)
            else:
                windows, real = window_partition(x, grid, self.window_size)
                attention = MaskedAttention(kernel, kernel.dense_form(real))
                x = window_merge(layer(windows, attention), grid,
                                 self.window_size)
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
