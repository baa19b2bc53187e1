"""The RandSAC segment decoder, with the paper's trainable skip connection."""
import torch
from mmcv.cnn import build_norm_layer
from mmcv.cnn.bricks.drop import DropPath
from mmcv.cnn.bricks.transformer import FFN
from mmengine.model import BaseModule, ModuleList
from mmpretrain.registry import MODELS
from torch import nn
from torch.utils.checkpoint import checkpoint

from ...argument_limits import RATE, check_argument
from ..utils import gather_tokens, sincos_2d_embedding
from .segment_decoder import SegmentDecoder

__all__ = ['RandSACDecoder', 'RandSACDecoderLayer']


class RandSACDecoderLayer(BaseModule):
    """Pre-norm decoder layer: masked self-attention over the target
    queries, masked cross-attention to the encoder memory, FFN.

    Args:
        embed_dims (int): decoder width C.
        num_heads (int): attention heads.
        feedforward_channels (int): FFN hidden width.
        memory_dims (int): width of the encoder memory (keys and values of
            the cross-attention are projected from it).
        drop_path_rate (float): stochastic depth of the residual branches.
    """

    fsdp_unit = True  # FSDP shards each layer as a unit (SegmentDecoder)

    def __init__(self, embed_dims, num_heads, feedforward_channels,
                 memory_dims, drop_path_rate=0.0, qkv_bias=True,
                 norm_cfg=dict(type='LN', eps=1e-6), init_cfg=None):
        super().__init__(init_cfg=init_cfg)
        if embed_dims % num_heads:
            raise ValueError(f'embed_dims ({embed_dims}) must be divisible by'
                             f' num_heads ({num_heads})')
        self.num_heads = num_heads
        self.ln1 = build_norm_layer(norm_cfg, embed_dims)[1]
        self.self_qkv = nn.Linear(embed_dims, 3 * embed_dims, bias=qkv_bias)
        self.self_proj = nn.Linear(embed_dims, embed_dims)
        self.ln2 = build_norm_layer(norm_cfg, embed_dims)[1]
        self.cross_q = nn.Linear(embed_dims, embed_dims, bias=qkv_bias)
        self.cross_kv = nn.Linear(memory_dims, 2 * embed_dims, bias=qkv_bias)
        self.cross_proj = nn.Linear(embed_dims, embed_dims)
        self.ln3 = build_norm_layer(norm_cfg, embed_dims)[1]
        drop_path = dict(type='DropPath', drop_prob=drop_path_rate)
        self.ffn = FFN(embed_dims=embed_dims,
                       feedforward_channels=feedforward_channels,
                       num_fcs=2, ffn_drop=0.0, dropout_layer=drop_path,
                       act_cfg=dict(type='GELU'), add_identity=True)
        self.drop_path = DropPath(drop_path_rate) if drop_path_rate > 0 \
            else nn.Identity()

    def forward(self, x, memory, self_attention, cross_attention):
        """Args:
            x (torch.Tensor): queries [B, Lq, C].
            memory (torch.Tensor): encoder memory [B, Lk, C_mem].
            self_attention (MaskedAttention): under the decoder rule's mask
                [B, h, Lq, Lq] (``SegmentBatch.decoder_attention``).
            cross_attention (MaskedAttention): under the cross rule's mask
                [B, h, Lq, Lk] (``SegmentBatch.cross_attention``).

        Returns:
            torch.Tensor: [B, Lq, C].
        """
        q, k, v = self.self_qkv(self.ln1(x)).chunk(3, dim=-1)
        x = x + self.drop_path(self.self_proj(
            self_attention(q, k, v, self.num_heads)))
        k, v = self.cross_kv(memory).chunk(2, dim=-1)
        q = self.cross_q(self.ln2(x))
        x = x + self.drop_path(self.cross_proj(
            cross_attention(q, k, v, self.num_heads)))
        return self.ffn(self.ln3(x), identity=x)


@MODELS.register_module()
class RandSACDecoder(SegmentDecoder):
    """Predicts every segment but the first from the encoder memory (the
    contract: ``SegmentDecoder``).

    Queries are the positional embeddings of the tokens to predict. Decoder
    layer ``l`` reads the memory ``Z_l = sum_k W[l, k] * H_k`` over the
    final-normed outputs ``H_k`` of all encoder layers (the paper's
    trainable skip connection, ``W`` of shape [num_layers, encoder_layers]),
    or the last encoder layer alone when ``skip_connection=False`` (the
    plain masked transformer).

    Args:
        num_patches (int | tuple[int, int]): token grid (h, w) or h * w for
            a square grid.
        encoder_dims (int): encoder width.
        encoder_layers (int): encoder depth L_enc.
        embed_dims (int): decoder width. Defaults to ``encoder_dims``.
        num_layers (int): decoder depth (the paper: 3, 4, 6 or 8).
        num_heads (int): decoder heads.
        mlp_ratio (float): FFN width over ``embed_dims``.
        skip_connection (bool): the trainable skip layer (default) or the
            plain masked transformer.
        pos_embed_type (str): 'sincos' (fixed) or 'learned'.
        drop_path_rate (float): stochastic depth, linearly over the layers.
        with_cp (bool): activation checkpointing (recompute each layer's
            activations in the backward pass instead of storing them).
    """

    pretraining_keys = ('skip_weights', 'layers.')

    def __init__(self,
                 num_patches,
                 encoder_dims,
                 encoder_layers,
                 embed_dims=None,
                 num_layers=8,
                 num_heads=16,
                 mlp_ratio=4.0,
                 skip_connection=True,
                 pos_embed_type='sincos',
                 drop_path_rate=0.0,
                 norm_cfg=dict(type='LN', eps=1e-6),
                 with_cp=False,
                 init_cfg=None):
        super().__init__(init_cfg=init_cfg)
        self.with_cp = with_cp
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f'num_layers (decoder depth) must be an int >= '
                             f'1, got {num_layers!r}')
        if pos_embed_type not in ('sincos', 'learned'):
            raise ValueError("pos_embed_type must be one of ('sincos', "
                             f"'learned'), got {pos_embed_type!r}")
        check_argument('drop_path_rate', drop_path_rate, RATE)
        if isinstance(num_patches, int):
            side = round(num_patches**0.5)
            if side * side != num_patches:
                raise ValueError(f'num_patches {num_patches} is not a square;'
                                 ' give the grid as (h, w)')
            num_patches = (side, side)
        self.grid = tuple(num_patches)
        self.embed_dims = embed_dims or encoder_dims
        self.encoder_layers = encoder_layers
        self.skip_connection = skip_connection
        self.pos_embed_type = pos_embed_type
        self.pos_embed = nn.Parameter(
            torch.zeros(1, self.grid[0] * self.grid[1], self.embed_dims),
            requires_grad=pos_embed_type == 'learned')
        # Numbers, not weights: on the CPU wherever the weights are made
        # (the memory estimate builds on the meta device).
        rates = torch.linspace(0, drop_path_rate, num_layers,
                               device='cpu').tolist()
        self.layers = ModuleList([
            RandSACDecoderLayer(self.embed_dims, num_heads,
                                int(mlp_ratio * self.embed_dims),
                                encoder_dims, rate, norm_cfg=norm_cfg)
            for rate in rates
        ])
        if skip_connection:
            self.skip_weights = nn.Parameter(
                torch.zeros(num_layers, encoder_layers))
        self.norm = build_norm_layer(norm_cfg, self.embed_dims)[1]

    def init_weights(self):
        super().init_weights()
        if self.pos_embed_type == 'sincos':
            self.pos_embed.data.copy_(
                sincos_2d_embedding(*self.grid, self.embed_dims))
        else:
            nn.init.trunc_normal_(self.pos_embed, std=0.02)
        for m in self.layers.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
        if self.skip_connection:
            # Start as the plain masked transformer (every layer reads the
            # last encoder layer); training learns the mixture.
            with torch.no_grad():
                self.skip_weights.zero_()
                self.skip_weights[:, -1] = 1.0

    def memories(self, encoder_outputs):
        """The memory of each decoder layer.

        With the skip layer, all of them come from one matmul,
        ``W [L_dec, L_enc] @ stack(H_k)``, over one copy of the stacked
        encoder outputs in the autocast dtype when autocast is on (the
        LayerNorm outputs are float32 under autocast; a per-layer mix would
        cast and keep the whole stack once per decoder layer for backward).

        Args:
            encoder_outputs (list[torch.Tensor]): final-normed output of
                each encoder layer, [B, Lk, C_enc] each.

        Returns:
            list[torch.Tensor]: L_dec memories, [B, Lk, C_enc] each.
        """
        if len(encoder_outputs) != self.encoder_layers:
            raise ValueError(
                f'RandSACDecoder was built for {self.encoder_layers} encoder '
                f'layers, got {len(encoder_outputs)}')
        if not self.skip_connection:
            return [encoder_outputs[-1]] * len(self.layers)
        last = encoder_outputs[-1]
        dtype = last.dtype
        if torch.is_autocast_enabled(last.device.type):
            dtype = torch.get_autocast_dtype(last.device.type)
        stacked = torch.stack([h.to(dtype) for h in encoder_outputs])
        mixed = torch.matmul(self.skip_weights.to(dtype),
                             stacked.flatten(1))  # [L_dec, B * Lk * C]
        return list(mixed.view(-1, *last.shape).unbind(0))

    def forward(self, encoder_outputs, batch):
        """Args:
            encoder_outputs (list[torch.Tensor]): see :meth:`memories`.
            batch (SegmentBatch): order and masks.

        Returns:
            torch.Tensor: final-normed decoder output [B, N - dec_start, C].
        """
        x = gather_tokens(self.pos_embed, batch.decoder_order)
        for layer, memory in zip(self.layers, self.memories(encoder_outputs)):
            args = (memory, batch.decoder_attention, batch.cross_attention)
            if self.with_cp and memory.requires_grad:
                x = checkpoint(layer, x, *args, use_reentrant=False)
            else:
                x = layer(x, *args)
        return self.norm(x)
