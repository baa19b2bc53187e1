"""The XLNet-style two-stream baseline of the paper's architecture table."""
import torch
from mmpretrain.registry import MODELS

from ..utils import gather_tokens
from .randsac_vit import RandSACViT

__all__ = ['RandSACTwoStreamViT']


@MODELS.register_module()
class RandSACTwoStreamViT(RandSACViT):
    """Two-stream attention with shared weights and no decoder.

    The content stream is the segment-causal encoder (source mask: own and
    earlier segments). The query stream starts from the positional
    embedding of each token to predict plus a learned query token, and in
    every layer attends, with the same weights, to the content stream's
    input of that layer under the memory mask (strictly earlier segments
    only). It gives the predicted tokens' features; the paper uses it as
    the first row of its architecture comparison.

    It predicts as it encodes, so ``RandSAC`` takes it with ``neck=None``
    (``predicts_segments``): its :meth:`encode_segments` gives the query
    stream, the features the head reads. Extra parameter: ``query_token``
    (ignored when the checkpoint is loaded into a VisionTransformer).
    """

    predicts_segments = True

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.query_token = torch.nn.Parameter(
            torch.zeros(1, 1, self.embed_dims))

    def init_weights(self):
        super().init_weights()
        torch.nn.init.normal_(self.query_token, std=0.02)

    def encode_segments(self, x, batch):
        """Args: images [B, 3, H, W] and the SegmentBatch.

        Returns:
            torch.Tensor: final-normed query stream [B, N - dec_start, C],
            tokens in serialization order.
        """
        content = self.pre_norm(
            gather_tokens(self.embed_tokens(x), batch.encoder_order))
        query = gather_tokens(self.pos_embed, batch.decoder_order) + \
            self.query_token
        last = len(self.layers) - 1
        for i, layer in enumerate(self.layers):
            query = layer(query, batch.cross_attention, content)
            if i < last:  # nothing reads the last layer's content stream
                content = layer(content, batch.encoder_attention)
        return self.final_norm_layer(query)
