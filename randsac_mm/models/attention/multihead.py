"""Multi-head attention around a kernel, for the masked layers."""

__all__ = ['attention_dropout', 'attention_output', 'multihead_attention']


def multihead_attention(q, k, v, num_heads, mask, kernel, dropout_p=0.0):
    """Masked scaled dot-product attention over heads.

    Args:
        q (torch.Tensor): [B, Lq, C]; k, v: [B, Lk, C].
        mask: the kernel's mask for [B, h, Lq, Lk] (``kernel.build_mask``;
            ``SegmentBatch`` holds a batch's three).
        kernel (AttentionKernel): the kernel that built ``mask``.
        dropout_p (float): dropout on the attention weights.

    Returns:
        torch.Tensor: [B, Lq, C].
    """
    batch, len_q, channels = q.shape
    head_dims = channels // num_heads

    def heads(x):
        return x.reshape(batch, -1, num_heads, head_dims).transpose(1, 2)

    out = kernel.attend(heads(q), heads(k), heads(v), mask, dropout_p)
    return out.transpose(1, 2).reshape(batch, len_q, channels)


def attention_output(attn, x):
    """mmpretrain MultiheadAttention's output path: proj, dropouts, scale."""
    return attn.out_drop(attn.gamma1(attn.proj_drop(attn.proj(x))))


def attention_dropout(attn):
    """The attention-weight dropout ``attn`` applies now (0 in eval)."""
    return attn.attn_drop if attn.training else 0.0
