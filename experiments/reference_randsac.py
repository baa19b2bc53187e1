"""A straightforward RandSAC, the baseline that the throughput benchmark
(``python -m experiments.benchmarks.throughput``) and the equivalence tests
compare ``RandSAC`` against.

Written the way the paper's listing approaches the model: torch's own
``nn.TransformerEncoderLayer`` / ``nn.TransformerDecoderLayer`` (pre-norm,
sequence-first ``[L, B, C]``), boolean masks, a linear patch embedding and
a linear skip mixer over the stacked, normed encoder layers. It takes the
same ``token_rank`` layouts and computes the same loss as
``randsac_mm.models.RandSAC`` (``reference_from_randsac`` copies the
weights), so the benchmark compares equal work done two ways. It is the
tests' oracle and the benchmark's 'reference' variant, kept beside the
benchmarks (the library never imports it), and it has none of the
package's fast paths:

- masks are built per call and expanded per head when layouts differ
  across the batch (nn.MultiheadAttention takes ``[B * heads, L, S]``);
- with equal segments (one mask for the batch) it leaves the last segment
  out of the encoder and the first out of the decoder, as the listing does
  (``src[:-seg_size]``, ``tgt[seg_size:]``); with segments of different
  sizes it keeps all N tokens in both and masks the loss instead.

Tensor shapes: images ``[B, 3, H, W]``; ``token_rank`` int64 ``[B, N]`` in
raster token order, the serialization step of each token's segment.
"""
import torch
import torch.nn.functional as F
from torch import nn

__all__ = ['ReferenceRandSAC', 'reference_from_randsac']


def patchify(images, patch_size):
    """[B, C, H, W] -> [B, N, P*P*C] (raster tokens; p1, p2, c inside)."""
    b, c, h, w = images.shape
    p = patch_size
    x = images.reshape(b, c, h // p, p, w // p, p)
    return x.permute(0, 2, 4, 3, 5, 1).reshape(b, -1, p * p * c)


class ReferenceRandSAC(nn.Module):
    """Encoder-decoder RandSAC on nn.Transformer layers.

    Args:
        img_size (int): square image side.
        patch_size (int): P.
        embed_dims (int): width of encoder and decoder (the listing's
            ``d_model``; every RandSAC config uses one width).
        encoder_layers, encoder_heads, decoder_layers, decoder_heads (int).
        feedforward_channels (int): FFN hidden width of every layer.
        skip_connection (bool): mix all encoder layers per decoder layer.
        norm_pix (bool): per-patch normalised pixel targets.
        eps (float): LayerNorm epsilon.
    """

    def __init__(self, img_size, patch_size, embed_dims, encoder_layers,
                 encoder_heads, decoder_layers, decoder_heads,
                 feedforward_channels, skip_connection=True, norm_pix=True,
                 eps=1e-6):
        super().__init__()
        self.patch_size = patch_size
        self.norm_pix = norm_pix
        self.encoder_heads = encoder_heads
        self.decoder_heads = decoder_heads
        num_tokens = (img_size // patch_size)**2
        patch_dims = patch_size * patch_size * 3
        layer_args = dict(d_model=embed_dims,
                          dim_feedforward=feedforward_channels, dropout=0.0,
                          activation='gelu', layer_norm_eps=eps,
                          norm_first=True)
        self.in_proj = nn.Linear(patch_dims, embed_dims)
        self.pos = nn.Parameter(torch.zeros(num_tokens, embed_dims),
                                requires_grad=False)
        self.query_pos = nn.Parameter(torch.zeros(num_tokens, embed_dims),
                                      requires_grad=False)
        self.encoder = nn.ModuleList(
            nn.TransformerEncoderLayer(nhead=encoder_heads, **layer_args)
            for _ in range(encoder_layers))
        self.encoder_norm = nn.LayerNorm(embed_dims, eps=eps)
        self.decoder = nn.ModuleList(
            nn.TransformerDecoderLayer(nhead=decoder_heads, **layer_args)
            for _ in range(decoder_layers))
        self.decoder_norm = nn.LayerNorm(embed_dims, eps=eps)
        self.skip = nn.Parameter(torch.zeros(
            decoder_layers, encoder_layers)) if skip_connection else None
        self.out_proj = nn.Linear(embed_dims, patch_dims)

    @staticmethod
    def _blocked(allowed, heads):
        """nn.MultiheadAttention's mask (True = blocked) from ``allowed``
        [B, L, S]: [L, S] if one mask serves the batch, else
        [B * heads, L, S]."""
        if bool((allowed == allowed[:1]).all()):
            return ~allowed[0]
        return ~allowed.repeat_interleave(heads, dim=0)

    def forward(self, images, token_rank):
        """Returns the scalar loss (MSE over the tokens of every segment
        but the first). ``token_rank``: int64 [B, N], array or tensor."""
        token_rank = torch.as_tensor(token_rank, device=images.device)
        rank, order = token_rank.sort(dim=1, stable=True)  # [B, N]
        patches = patchify(images, self.patch_size)
        patches = patches.gather(
            1, order[..., None].expand(-1, -1, patches.shape[-1]))
        pos = self.pos[order]  # [B, N, C]
        query_pos = self.query_pos[order]
        # The listing's trim, when every sample has the same segment sizes.
        if bool((rank == rank[:1]).all()):
            enc_end = int((rank[0] < rank[0, -1]).sum())
            dec_start = int((rank[0] == 0).sum())
        else:
            enc_end, dec_start = rank.shape[1], 0
        src_rank, tgt_rank = rank[:, :enc_end], rank[:, dec_start:]
        # Sequence-first, as nn.Transformer's default.
        src = (self.in_proj(patches) + pos)[:, :enc_end].transpose(0, 1)
        tgt = query_pos[:, dec_start:].transpose(0, 1)

        q, k = src_rank[:, :, None], src_rank[:, None, :]
        src_mask = self._blocked(k <= q, self.encoder_heads)
        q, k = tgt_rank[:, :, None], tgt_rank[:, None, :]
        eye = torch.eye(q.shape[1], dtype=torch.bool, device=q.device)
        tgt_mask = self._blocked(((k >= 1) & (k <= q)) | eye,
                                 self.decoder_heads)
        k = src_rank[:, None, :]
        # First-segment queries see no earlier segment; let them read the
        # first segment (never scored) instead of a NaN softmax row.
        memory_mask = self._blocked((k < q) | ((q == 0) & (k == 0)),
                                    self.decoder_heads)

        hidden = []
        for layer in self.encoder:
            src = layer(src, src_mask=src_mask)
            hidden.append(src)
        hidden = self.encoder_norm(torch.stack(hidden))  # [L_enc, L, B, C]
        if self.skip is None:
            memories = [hidden[-1]] * len(self.decoder)
        else:
            mixed = self.skip @ hidden.flatten(1)  # [L_dec, L * B * C]
            memories = mixed.view(-1, *hidden.shape[1:])
        for layer, memory in zip(self.decoder, memories):
            tgt = layer(tgt, memory, tgt_mask=tgt_mask,
                        memory_mask=memory_mask)
        pred = self.out_proj(self.decoder_norm(tgt)).transpose(0, 1)

        target = patches[:, dec_start:]
        if self.norm_pix:
            mean = target.mean(dim=-1, keepdim=True)
            var = target.var(dim=-1, keepdim=True)
            target = (target - mean) / (var + 1e-6)**0.5
        per_token = F.mse_loss(pred.float(), target.float(),
                               reduction='none').mean(dim=-1)
        scored = (tgt_rank >= 1).to(per_token.dtype)
        return (per_token * scored).sum() / scored.sum()


def _copy_linear(dst, src):
    dst.weight.copy_(src.weight)
    dst.bias.copy_(src.bias)


def _copy_ffn(layer, ffn):
    """mmcv FFN (Linear, GELU, Dropout), Linear -> linear1, linear2."""
    _copy_linear(layer.linear1, ffn.layers[0][0])
    _copy_linear(layer.linear2, ffn.layers[1])


@torch.no_grad()
def reference_from_randsac(model):
    """A ``ReferenceRandSAC`` holding the weights of ``model`` (a RandSAC
    with a ``RandSACViT`` backbone and a ``RandSACDecoder`` neck of the
    encoder's width)."""
    backbone, neck, head = model.backbone, model.neck, model.head
    embed_dims = backbone.embed_dims
    if neck is None or neck.embed_dims != embed_dims:
        raise ValueError('reference_from_randsac needs a RandSACDecoder '
                         'neck as wide as the encoder')
    first, first_dec = backbone.layers[0], neck.layers[0]
    ref = ReferenceRandSAC(
        img_size=backbone.img_size[0], patch_size=head.patch_size,
        embed_dims=embed_dims, encoder_layers=len(backbone.layers),
        encoder_heads=first.attn.num_heads, decoder_layers=len(neck.layers),
        decoder_heads=first_dec.num_heads,
        feedforward_channels=first.ffn.layers[0][0].out_features,
        skip_connection=neck.skip_connection, norm_pix=head.norm_pix,
        eps=backbone.ln1.eps)
    conv = backbone.patch_embed.projection  # [C, 3, P, P]
    ref.in_proj.weight.copy_(conv.weight.permute(0, 2, 3, 1).flatten(1))
    ref.in_proj.bias.copy_(conv.bias)
    ref.pos.copy_(backbone.pos_embed[0])
    ref.query_pos.copy_(neck.pos_embed[0])
    for dst, src in zip(ref.encoder, backbone.layers):
        dst.norm1.load_state_dict(src.ln1.state_dict())
        dst.norm2.load_state_dict(src.ln2.state_dict())
        dst.self_attn.in_proj_weight.copy_(src.attn.qkv.weight)
        dst.self_attn.in_proj_bias.copy_(src.attn.qkv.bias)
        _copy_linear(dst.self_attn.out_proj, src.attn.proj)
        _copy_ffn(dst, src.ffn)
    ref.encoder_norm.load_state_dict(backbone.ln1.state_dict())
    for dst, src in zip(ref.decoder, neck.layers):
        for i in (1, 2, 3):
            getattr(dst, f'norm{i}').load_state_dict(
                getattr(src, f'ln{i}').state_dict())
        dst.self_attn.in_proj_weight.copy_(src.self_qkv.weight)
        dst.self_attn.in_proj_bias.copy_(src.self_qkv.bias)
        _copy_linear(dst.self_attn.out_proj, src.self_proj)
        dst.multihead_attn.in_proj_weight.copy_(
            torch.cat([src.cross_q.weight, src.cross_kv.weight]))
        dst.multihead_attn.in_proj_bias.copy_(
            torch.cat([src.cross_q.bias, src.cross_kv.bias]))
        _copy_linear(dst.multihead_attn.out_proj, src.cross_proj)
        _copy_ffn(dst, src.ffn)
    ref.decoder_norm.load_state_dict(neck.norm.state_dict())
    if ref.skip is not None:
        ref.skip.copy_(neck.skip_weights)
    _copy_linear(ref.out_proj, head.predictor)
    return ref.to(conv.weight.device)
