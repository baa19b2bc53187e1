"""Masked multi-head attention in three kernels.

The masked layers (``SegmentCausalLayer``, ``RandSACDecoderLayer``) call
:func:`multihead_attention`, which picks the kernel by the mask's type
(``SegmentBatch(attention=...)`` builds the masks):

- a boolean mask goes to ``F.scaled_dot_product_attention`` (on a CPU its
  flash kernel; on a GPU flash or memory-efficient attention);
- a float mask is an additive bias (0 or -inf) for an explicit
  ``softmax(q k^T / sqrt(d) + bias) v``. RandSAC's sequences are short
  (64 to 196 tokens), and there the CPU flash kernel's backward, run block
  by block, is the slowest op of a bf16 step: two batched matmuls and one
  softmax are faster (``tools/benchmarks/pretrain_throughput.py``);
- a ``BlockMask`` goes to ``flex_attention`` (compiled), which applies the
  rules inside one fused kernel. For CUDA: torch has no flex_attention
  backward on a CPU.
"""
import functools

import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import BlockMask, flex_attention

__all__ = ['ATTENTION_KERNELS', 'attention_dropout', 'attention_output',
           'explicit_attention', 'multihead_attention']

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


def attention_output(attn, x):
    """mmpretrain MultiheadAttention's output path: proj, dropouts, scale."""
    return attn.out_drop(attn.gamma1(attn.proj_drop(attn.proj(x))))


def attention_dropout(attn):
    """The attention-weight dropout ``attn`` applies now (0 in eval)."""
    return attn.attn_drop if attn.training else 0.0
