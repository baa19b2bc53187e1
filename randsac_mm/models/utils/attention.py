"""Masked attention on top of mmpretrain's MultiheadAttention weights.

``RandSACViT`` keeps mmpretrain's ``TransformerEncoderLayer`` modules (and so
their parameter names), whose ``forward`` takes no mask. These functions run
the same computation with a boolean mask through
``F.scaled_dot_product_attention``.
"""
import torch.nn.functional as F

__all__ = ['multihead_attention', 'masked_self_attention',
           'masked_encoder_layer', 'query_stream_layer']


def multihead_attention(q, k, v, num_heads, mask, dropout_p=0.0):
    """Scaled dot-product attention over heads.

    Args:
        q (torch.Tensor): [B, Lq, C]; k, v: [B, Lk, C].
        mask (torch.Tensor | None): bool [B or 1, 1, Lq, Lk], True = attend.

    Returns:
        torch.Tensor: [B, Lq, C].
    """
    batch, len_q, channels = q.shape
    head_dims = channels // num_heads

    def heads(x):
        return x.reshape(batch, -1, num_heads, head_dims).transpose(1, 2)

    out = F.scaled_dot_product_attention(
        heads(q), heads(k), heads(v), attn_mask=mask, dropout_p=dropout_p)
    return out.transpose(1, 2).reshape(batch, len_q, channels)


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
