"""Masked attention on top of mmpretrain's MultiheadAttention weights.

``RandSACViT`` keeps mmpretrain's ``TransformerEncoderLayer`` modules (and so
their parameter names), whose ``forward`` takes no mask. These functions run
the same computation with a segment mask, in one of two kernels chosen by
the mask's dtype (``SegmentBatch(attention=...)`` builds the masks):

- a boolean mask goes to ``F.scaled_dot_product_attention`` (on a CPU its
  flash kernel; on a GPU flash or memory-efficient attention);
- a float mask is an additive bias (0 or -inf) for an explicit
  ``softmax(q k^T / sqrt(d) + bias) v``. RandSAC's sequences are short
  (64 to 196 tokens), and there the CPU flash kernel's backward, run block
  by block, is the slowest op of a bf16 step: two batched matmuls and one
  softmax are faster (``tools/benchmarks/pretrain_throughput.py``);
- a ``BlockMask`` goes to ``flex_attention`` (compiled), which skips the
  blocks the segment-causal rules mask entirely. For CUDA: torch has no
  flex_attention backward on a CPU.
"""
import functools

import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import BlockMask, flex_attention

__all__ = ['ATTENTION_KERNELS', 'multihead_attention', 'explicit_attention',
           'masked_self_attention', 'masked_encoder_layer',
           'query_stream_layer']

# The kernels above, by name, each with the mask form ``SegmentBatch``
# builds for it: 'sdpa' boolean masks, 'explicit' additive float32 masks,
# 'flex' BlockMasks.
ATTENTION_KERNELS = ('sdpa', 'explicit', 'flex')


def multihead_attention(q, k, v, num_heads, mask, dropout_p=0.0):
    """Scaled dot-product attention over heads.

    Args:
        q (torch.Tensor): [B, Lq, C]; k, v: [B, Lk, C].
        mask (torch.Tensor | None): [B or 1, 1, Lq, Lk]; bool (True =
            attend) for the SDPA kernel, or a float32 additive bias (0 =
            attend, -inf = blocked) for the explicit kernel.

    Returns:
        torch.Tensor: [B, Lq, C].
    """
    batch, len_q, channels = q.shape
    head_dims = channels // num_heads

    def heads(x):
        return x.reshape(batch, -1, num_heads, head_dims).transpose(1, 2)

    if isinstance(mask, BlockMask):
        if dropout_p > 0.0:
            raise ValueError('attention dropout is not supported with '
                             "attention='flex'; use 'sdpa'")
        out = compiled_flex_attention()(heads(q), heads(k), heads(v),
                                        block_mask=mask)
    elif mask is not None and mask.is_floating_point():
        out = explicit_attention(heads(q), heads(k), heads(v), mask,
                                 dropout_p)
    else:
        out = F.scaled_dot_product_attention(
            heads(q), heads(k), heads(v), attn_mask=mask,
            dropout_p=dropout_p)
    return out.transpose(1, 2).reshape(batch, len_q, channels)


@functools.lru_cache(maxsize=1)
def compiled_flex_attention():
    """flex_attention compiled once: it is only fast when compiled (eager
    runs a dense reference). On a CPU, eager (forward only; tests)."""
    if not torch.cuda.is_available():
        return flex_attention
    return torch.compile(flex_attention, dynamic=True)


def explicit_attention(q, k, v, bias, dropout_p=0.0):
    """softmax(q k^T / sqrt(d) + bias) v, the softmax in float32.

    Args:
        q (torch.Tensor): [B, h, Lq, d]; k, v: [B, h, Lk, d].
        bias (torch.Tensor): float32 [B or 1, 1, Lq, Lk], 0 or -inf.

    Returns:
        torch.Tensor: [B, h, Lq, d], in v's dtype.
    """
    scores = torch.matmul(q, k.transpose(-2, -1)).float()
    weights = torch.softmax(scores * q.shape[-1]**-0.5 + bias, dim=-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    return torch.matmul(weights.to(v.dtype), v)


def _output(attn, x):
    """mmpretrain MultiheadAttention's output path: proj, dropouts, scale."""
    return attn.out_drop(attn.gamma1(attn.proj_drop(attn.proj(x))))


def _dropout(attn):
    return attn.attn_drop if attn.training else 0.0


def masked_self_attention(attn, x, mask):
    """``attn`` (mmpretrain MultiheadAttention) on x [B, L, C] with a mask."""
    if attn.v_shortcut:
        raise NotImplementedError('v_shortcut attention is not supported')
    q, k, v = attn.qkv(x).chunk(3, dim=-1)
    out = multihead_attention(q, k, v, attn.num_heads, mask, _dropout(attn))
    return _output(attn, out)


def masked_encoder_layer(layer, x, mask):
    """mmpretrain TransformerEncoderLayer.forward with a mask: [B, L, C]."""
    x = x + masked_self_attention(layer.attn, layer.ln1(x), mask)
    return layer.ffn(layer.ln2(x), identity=x)


def query_stream_layer(layer, query, content, mask):
    """One layer of the two-stream query stream (weights shared with the
    content stream): queries from ``query`` [B, Lq, C], keys and values
    from the layer's content-stream input ``content`` [B, Lk, C]."""
    attn = layer.attn
    channels = query.shape[-1]
    weight, bias = attn.qkv.weight, attn.qkv.bias
    q = F.linear(layer.ln1(query), weight[:channels],
                 None if bias is None else bias[:channels])
    k, v = F.linear(layer.ln1(content), weight[channels:],
                    None if bias is None else bias[channels:]).chunk(2, -1)
    out = multihead_attention(q, k, v, attn.num_heads, mask, _dropout(attn))
    query = query + _output(attn, out)
    return layer.ffn(layer.ln2(query), identity=query)
