"""'explicit': ``softmax(q k^T / sqrt(d) + bias) v`` with an additive mask.

RandSAC's sequences are short (64 to 196 tokens), and there the CPU flash
kernel's backward, run block by block, is the slowest op of a bf16 step:
two batched matmuls and one softmax are faster
(the throughput benchmark, docs/performance.md), so 'auto' takes this kernel
on a CPU.
"""
import torch
import torch.nn.functional as F

from .kernel import DenseMaskKernel, register_attention_kernel

__all__ = ['ExplicitKernel', 'explicit_attention']


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


@register_attention_kernel('explicit')
class ExplicitKernel(DenseMaskKernel):
    """Its mask: float32 [B, 1, Lq, Lk], 0 where a query may attend and
    -inf where it may not."""
    auto_devices = ('cpu', )

    def dense_form(self, allowed):
        bias = torch.zeros(allowed.shape, device=allowed.device)
        return bias.masked_fill_(~allowed, float('-inf'))

    def attend(self, q, k, v, mask, dropout_p=0.0):
        return explicit_attention(q, k, v, mask, dropout_p)
