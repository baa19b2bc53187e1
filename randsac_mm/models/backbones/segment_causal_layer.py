"""mmpretrain's ViT encoder layer, with a mask and a two-stream query path."""
from mmpretrain.models.backbones.vision_transformer import (
    TransformerEncoderLayer,
)
from torch.nn import functional as F

from ..attention import (
    attention_dropout,
    attention_output,
    multihead_attention,
)

__all__ = ['SegmentCausalLayer']


class SegmentCausalLayer(TransformerEncoderLayer):
    """``TransformerEncoderLayer`` whose ``forward`` takes a mask.

    Built with ``TransformerEncoderLayer``'s arguments, it adds no parameter
    or state, so parameter names, initialisation and checkpoints stay
    mmpretrain's (``RandSACViT`` builds its layers as this class). Every
    masked computation runs inside this module's own ``forward``, so
    wrappers that act on module calls (FSDP units gathering their shards,
    activation checkpointing) see it.

    Raises:
        ValueError: the attention has ``v_shortcut`` (the masked path
            computes attention itself and has no such shortcut).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.attn.v_shortcut:
            raise ValueError('SegmentCausalLayer: v_shortcut attention is '
                             'not supported')
        # VisionTransformer gives stochastic depth rates as numpy scalars
        # (from np.linspace); torch.compile reads a branch on one as data-
        # dependent. Same value as a Python float.
        for module in self.modules():
            if hasattr(module, 'drop_prob'):
                module.drop_prob = float(module.drop_prob)

    def forward(self, x, mask=None, content=None, kernel=None):
        """Args:
            x (torch.Tensor): [B, L, C], the layer's input; for the query
                stream, the queries [B, Lq, C].
            mask: the attention mask for [B, h, L, Lk], in ``kernel``'s
                form (``SegmentBatch`` builds them); None: full attention,
                mmpretrain's own forward.
            content (torch.Tensor | None): two-stream query stream: the
                content stream's input of this layer [B, Lk, C], from which
                keys and values come, with the same weights (XLNet).
            kernel (AttentionKernel | None): the kernel of ``mask``
                (needed with a mask).

        Returns:
            torch.Tensor: [B, L, C].
        """
        if mask is None and content is None:
            return super().forward(x)
        attn = self.attn
        if content is None:
            q, k, v = attn.qkv(self.ln1(x)).chunk(3, dim=-1)
        else:
            channels = x.shape[-1]
            weight, bias = attn.qkv.weight, attn.qkv.bias
            q = F.linear(self.ln1(x), weight[:channels],
                         None if bias is None else bias[:channels])
            k, v = F.linear(self.ln1(content), weight[channels:],
                            None if bias is None else bias[channels:]
                            ).chunk(2, dim=-1)
        out = multihead_attention(q, k, v, attn.num_heads, mask, kernel,
                                  attention_dropout(attn))
        x = x + attention_output(attn, out)
        return self.ffn(self.ln2(x), identity=x)
