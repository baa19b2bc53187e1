"""The RandSAC encoder: a ViT whose layers attend segment-causally."""
from mmengine.model import BaseModule, ModuleList
from mmpretrain.models import VisionTransformer
from mmpretrain.registry import MODELS
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint

from ...argument_limits import RATE, ArgumentOutOfRange, check_argument
from ...checkpoint.loading import check_pretrained_checkpoint
from ..utils import gather_tokens, sincos_2d_embedding

__all__ = ['RandSACViT', 'SegmentCausalLayer']

POS_EMBED_TYPES = ('sincos', 'learned')
# As MAE pretraining: Xavier-uniform linears (mmpretrain's ViT leaves the
# attention projections at PyTorch's default), patch embedding like ViT.
DEFAULT_INIT = [
    dict(type='Kaiming', layer='Conv2d', mode='fan_in',
         nonlinearity='linear'),
    dict(type='Xavier', layer='Linear', distribution='uniform'),
]


class SegmentCausalLayer(BaseModule):
    """One of mmpretrain's ``TransformerEncoderLayer``s, attending under a
    mask: it holds the parts VisionTransformer built for that layer (``ln1``,
    ``attn``, ``ln2``, ``ffn``, under their names), so parameter names,
    initial weights and checkpoints stay mmpretrain's, and adds none. Every
    masked computation runs inside this module's own ``forward``, so
    wrappers that act on module calls (FSDP units gathering their shards,
    activation checkpointing) see it.

    Args:
        layer (TransformerEncoderLayer): the layer VisionTransformer built.

    Raises:
        ValueError: the attention has ``v_shortcut`` (the masked path
            computes attention itself and has no such shortcut).
    """

    fsdp_unit = True  # FSDP shards each layer as a unit

    def __init__(self, layer):
        super().__init__()
        if layer.attn.v_shortcut:
            raise ValueError('SegmentCausalLayer: v_shortcut attention is '
                             'not supported')
        self.embed_dims = layer.embed_dims
        self.ln1, self.attn, self.ln2, self.ffn = \
            layer.ln1, layer.attn, layer.ln2, layer.ffn
        # VisionTransformer gives stochastic depth rates as numpy scalars
        # (from np.linspace); torch.compile reads a branch on one as data-
        # dependent. Same value as a Python float.
        for module in self.modules():
            if hasattr(module, 'drop_prob'):
                module.drop_prob = float(module.drop_prob)

    def init_weights(self):
        """``TransformerEncoderLayer.init_weights``, the same draws: the
        parts' own, then the FFN's linears Xavier-uniform, biases ~N(0,
        1e-6)."""
        super().init_weights()
        for module in self.ffn.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)
                nn.init.normal_(module.bias, std=1e-6)

    def forward(self, x, attention=None, content=None):
        """Args:
            x (torch.Tensor): [B, L, C], the layer's input; for the query
                stream, the queries [B, Lq, C].
            attention (MaskedAttention | None): the masked attention of a
                rule (``SegmentBatch.encoder_attention`` and the like);
                None: full attention, mmpretrain's own forward.
            content (torch.Tensor | None): two-stream query stream: the
                content stream's input of this layer [B, Lk, C], from which
                keys and values come, with the same weights (XLNet).

        Returns:
            torch.Tensor: [B, L, C].
        """
        if attention is None:  # TransformerEncoderLayer's forward
            x = x + self.attn(self.ln1(x))
            return self.ffn(self.ln2(x), identity=x)
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
        out = attention(q, k, v, attn.num_heads,
                        attn.attn_drop if attn.training else 0.0)
        # mmpretrain MultiheadAttention's output path: proj, dropouts, scale.
        x = x + attn.out_drop(attn.gamma1(attn.proj_drop(attn.proj(out))))
        return self.ffn(self.ln2(x), identity=x)


@MODELS.register_module()
class RandSACViT(VisionTransformer):
    """mmpretrain's VisionTransformer, with its parameter names, plus
    segment-causal encoding (:meth:`encode_segments`); ``forward`` is a
    plain ViT (docs/model.md, "Modules").

    Args:
        arch (str | dict): VisionTransformer's: an ``arch_zoo`` name, or a
            dict with ``embed_dims``, ``num_layers``, ``num_heads`` and
            ``feedforward_channels``.
        pos_embed_type (str): 'sincos' (fixed 2-D sine-cosine, the paper's
            text; default) or 'learned' (trainable, the paper's listing).
        out_type (str): defaults to 'featmap' ([B, C, h, w] after the final
            norm), from which ``RandSAC.extract_feat`` averages.
        with_cp (bool): activation checkpointing in ``encode_segments``:
            each layer's activations are recomputed in the backward pass
            instead of stored (less memory, about a third more compute).
        frozen_stages (int | str): as VisionTransformer's, or 'all' for
            every layer and the final norm (linear probing), whatever the
            depth.
        with_cls_token (bool): a class token, for evaluating encoders
            pretrained with one (mmpretrain's ``MAEViT``: the token then
            attends in every layer, as in its pretraining; the feature is
            still the averaged patch tokens). RandSAC pretraining has none;
            ``encode_segments`` refuses it.
        unused_checkpoint_keys (tuple[str]): encoder keys of the
            pretrained checkpoint this backbone knowingly leaves unused:
            ``('query_token', )`` evaluates a two-stream checkpoint as its
            content stream. Any other key it lacks is refused.
        **kwargs: VisionTransformer's other arguments, with its defaults
            (``img_size``, ``patch_size``, ``out_indices``,
            ``drop_path_rate``, ``layer_cfgs``, ``pre_norm``, ...).
    """

    # Whether encode_segments already gives the predicted tokens' features
    # (the two-stream subclass), so RandSAC takes no neck.
    predicts_segments = False

    def __init__(self,
                 arch='base',
                 pos_embed_type='sincos',
                 out_type='featmap',
                 with_cls_token=False,
                 final_norm=True,
                 init_cfg=DEFAULT_INIT,
                 with_cp=False,
                 unused_checkpoint_keys=(),
                 frozen_stages=-1,
                 **kwargs):
        if pos_embed_type not in POS_EMBED_TYPES:
            raise ValueError(f'pos_embed_type must be one of '
                             f'{POS_EMBED_TYPES}, got {pos_embed_type!r}')
        self._check_arch(arch)
        # 1.0 drops every residual branch (NaN at the first iteration), or
        # every token after the embedding.
        for rate in ('drop_path_rate', 'drop_rate'):
            check_argument(rate, kwargs.get(rate, 0.0), RATE)
        img_size = kwargs.get('img_size', 224)
        patch_size = kwargs.get('patch_size', 16)
        sides = (img_size, img_size) if isinstance(img_size, int) \
            else tuple(img_size)
        if any(side % patch_size for side in sides):
            raise ValueError(
                f'RandSACViT: img_size {img_size} must be divisible by '
                f'patch_size {patch_size} (segments are made of whole '
                'patches); allowed sides are multiples of the patch size')
        if not final_norm:
            raise ValueError('RandSACViT needs final_norm=True: the decoder '
                             'reads the final-normed encoder layers')
        super().__init__(arch=arch, out_type=out_type,
                         with_cls_token=with_cls_token, final_norm=True,
                         init_cfg=init_cfg, **kwargs)
        # The layers VisionTransformer built, each attending under a mask
        # (the same parts: names, weights and random draws are its own).
        self.layers = ModuleList(
            SegmentCausalLayer(layer) for layer in self.layers)
        # 'all': the linear probe, whatever the depth.
        self.frozen_stages = self.num_layers if frozen_stages == 'all' \
            else frozen_stages
        if self.frozen_stages > 0:
            self._freeze_stages()
        self.pos_embed_type = pos_embed_type
        self.with_cp = with_cp
        self.unused_checkpoint_keys = tuple(unused_checkpoint_keys)
        if pos_embed_type == 'sincos':
            self.pos_embed.requires_grad = False

    @classmethod
    def _check_arch(cls, arch):
        """Refuses an ``arch`` name its ``arch_zoo`` lacks (mmpretrain's
        assertion would not name the key)."""
        if isinstance(arch, dict) or (isinstance(arch, str) and
                                      arch.lower() in cls.arch_zoo):
            return
        raise ArgumentOutOfRange('arch', arch, (
            f"a name of {cls.__name__}'s arch_zoo "
            f"({', '.join(sorted(cls.arch_zoo))}) or a dict of embed_dims, "
            'num_layers, num_heads and feedforward_channels'))

    def init_weights(self):
        pretrained = isinstance(self.init_cfg, dict) and \
            self.init_cfg.get('type') == 'Pretrained'
        if pretrained:
            # mmengine loads with strict=False: refuse what would not load.
            check_pretrained_checkpoint(self, self.init_cfg.get('checkpoint'),
                                        self.init_cfg.get('prefix', ''),
                                        self.unused_checkpoint_keys)
        # VisionTransformer draws a learned pos_embed unless pretrained.
        super().init_weights()
        if self.pos_embed_type == 'sincos' and not pretrained:
            # The class token's entry, if any, stays zero (as MAEViT's).
            self.pos_embed.data.zero_()
            self.pos_embed.data[:, self.num_extra_tokens:] = \
                sincos_2d_embedding(*self.patch_resolution, self.embed_dims)

    @property
    def final_norm_layer(self):
        """The final LayerNorm (``ln1``); ``encode_segments`` applies it to
        every layer's output."""
        return self.ln1

    def embed_tokens(self, x):
        """Patch and positional embedding: [B, 3, H, W] -> [B, N, C]."""
        if self.with_cls_token:
            raise ValueError(
                'RandSACViT: segment-causal encoding has no class token; '
                'with_cls_token=True is for evaluating encoders pretrained '
                'with one (MAE)')
        x, hw = self.patch_embed(x)
        if tuple(hw) != tuple(self.patch_resolution):
            raise ValueError(
                f'RandSACViT: the input gives a {hw[0]}x{hw[1]} token grid, '
                f'the model was built for {self.patch_resolution[0]}x'
                f'{self.patch_resolution[1]} (img_size {self.img_size}); '
                'crop pretraining images to img_size')
        return self.drop_after_pos(x + self.pos_embed)

    def encode_segments(self, x, batch):
        """Segment-causal encoding.

        Args:
            x (torch.Tensor): images [B, 3, H, W].
            batch (SegmentBatch): order and masks of the batch's layouts.

        Returns:
            list[torch.Tensor]: each layer's output after the final norm
            (what the decoder reads), [B, enc_len, C], tokens in
            serialization order.
        """
        x = gather_tokens(self.embed_tokens(x), batch.encoder_order)
        x = self.pre_norm(x)
        hidden = []
        for layer in self.layers:
            if self.with_cp and x.requires_grad:
                x = checkpoint(layer, x, batch.encoder_attention,
                               use_reentrant=False)
            else:
                x = layer(x, batch.encoder_attention)
            hidden.append(self.final_norm_layer(x))
        return hidden
