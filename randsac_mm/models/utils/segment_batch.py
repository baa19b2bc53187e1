"""What a token may see: the three rules of RandSAC's masks, a batch's
token order and its masks, and the attention the layers call under them.

**The order.** Tokens are sorted by their serialization step
(``token_rank``, the segment's step in prediction order), so each
sample's sequence runs through its segments in that order. The encoder
drops the last segment and the decoder the first. When segment sizes
differ across the batch (blobs, shuffled), the sequences are cut at the
batch's smallest last/first segment, so a few samples keep some tokens of
their last segment in the encoder (no query may read them: harmless) or of
their first segment in the decoder (never predicted; the cross rule says
what they read).

**The rules.** ``r`` is the serialization step of a token's segment. Each
rule is a function of the query's and the key's rank and position (any
broadcastable tensors):

- encoder self-attention: ``r_key <= r_query`` (own and earlier segments);
- decoder self-attention: ``1 <= r_key <= r_query`` (own and earlier
  *target* segments), and every token itself, so no row is empty;
- cross-attention (decoder to encoder): ``r_key < r_query`` (strictly
  earlier segments).

Why the first segment is special in cross-attention: when segment sizes
differ across a batch, the decoder's sequences start at the batch's
smallest first segment, so a few samples keep first-segment queries. Such
a row could see no encoder token at all, and a fully masked row gives NaN
in softmax, so it reads the first segment instead; it is never predicted
(``SegmentBatch.loss_mask``) and no other query attends to it.

**The masks.** :class:`SegmentBatch` builds one mask per rule, in the form
its attention kernel takes (``AttentionKernel.build_mask``: a dense
boolean or additive mask, flex_attention's ``mask_mod``), and hands the
layers one :class:`MaskedAttention` per rule: they never see a mask or a
kernel (``randsac_mm.models.attention`` holds the kernels).
"""
import numpy as np
import torch

__all__ = ['MaskedAttention', 'SegmentBatch', 'cross_rule', 'decoder_rule',
           'encoder_rule', 'gather_tokens', 'host_array']


# --- The rules ---------------------------------------------------------

def encoder_rule(query_rank, key_rank, query_pos, key_pos):
    """Encoder self-attention: own and earlier segments."""
    return key_rank <= query_rank


def decoder_rule(query_rank, key_rank, query_pos, key_pos):
    """Decoder self-attention: own and earlier target segments (never the
    first), and the token itself."""
    return ((key_rank >= 1) & (key_rank <= query_rank)) | \
        (query_pos == key_pos)


def cross_rule(query_rank, key_rank, query_pos, key_pos):
    """Decoder to encoder: strictly earlier segments; a first-segment query
    reads the first segment."""
    return (key_rank < query_rank) | ((query_rank == 0) & (key_rank == 0))


class MaskedAttention:
    """Multi-head attention under one mask, through the kernel that built
    it: what a masked layer calls (``SegmentBatch`` holds one per rule).

    Args:
        kernel (AttentionKernel): the kernel that built ``mask``.
        mask: the kernel's mask for [B, h, Lq, Lk].
    """

    def __init__(self, kernel, mask):
        self.kernel = kernel
        self.mask = mask

    def __call__(self, q, k, v, num_heads, dropout_p=0.0):
        """Args:
            q (torch.Tensor): [B, Lq, C]; k, v: [B, Lk, C].
            num_heads (int): heads h; C = h * d.
            dropout_p (float): dropout on the attention weights.

        Returns:
            torch.Tensor: [B, Lq, C].
        """
        batch, len_q, channels = q.shape
        head_dims = channels // num_heads

        def heads(x):
            return x.reshape(batch, -1, num_heads, head_dims).transpose(1, 2)

        out = self.kernel.attend(heads(q), heads(k), heads(v), self.mask,
                                 dropout_p)
        return out.transpose(1, 2).reshape(batch, len_q, channels)


# --- A batch's order and masks ------------------------------------------


def gather_tokens(x, index):
    """Picks tokens per sample.

    Args:
        x (torch.Tensor): [B, N, C] (or [1, N, C], expanded to the batch).
        index (torch.Tensor): int64 [B, L], token indices into N.

    Returns:
        torch.Tensor: [B, L, C].
    """
    x = x.expand(index.shape[0], -1, -1)
    return x.gather(1, index.unsqueeze(-1).expand(-1, -1, x.shape[-1]))


def host_array(token_rank):
    """``token_rank`` as a host int64 array [B, N]: numpy as the pipeline
    makes it, or a tensor (copied from its device: a sync, which the
    training path avoids by passing the pipeline's arrays)."""
    if torch.is_tensor(token_rank):
        token_rank = token_rank.detach().cpu().numpy()
    ranks = np.asarray(token_rank)
    if ranks.ndim != 2:
        raise ValueError(f'token_rank must be [B, N], got shape '
                         f'{tuple(ranks.shape)}')
    if not np.issubdtype(ranks.dtype, np.integer):
        raise ValueError(f'token_rank must hold integers, got {ranks.dtype}')
    return ranks.astype(np.int64, copy=False)


def to_device(array, device):
    """A host array on ``device``; to CUDA from pinned memory without
    blocking the host (the copy is ordered before the kernels using it)."""
    tensor = torch.from_numpy(np.ascontiguousarray(array))
    if device.type == 'cuda' and torch.cuda.is_available():
        return tensor.pin_memory().to(device, non_blocking=True)
    return tensor.to(device)


class SegmentBatch:
    """The order and masks of ``token_rank`` [B, N] (tokens in raster
    order).

    The order and the sequence lengths are planned on the host, from the
    layouts the data pipeline made there; the masks are then built on the
    device from the sorted ranks. Nothing waits for the device: a training
    step makes no data-dependent device-to-host copy, and traces under
    ``torch.compile(fullgraph=True)`` and ``FakeTensorMode``.

    Attributes:
        order (torch.Tensor): int64 [B, N], the raster index of the token at
            each position of the sorted sequence.
        encoder_order (torch.Tensor): int64 [B, enc_len], raster indices of
            the encoded tokens.
        decoder_order (torch.Tensor): int64 [B, N - dec_start], raster
            indices of the decoded tokens.
        sorted_rank (torch.Tensor): int64 [B, N], its serialization step.
        encoder_rank, decoder_rank (torch.Tensor): its slices [B, enc_len]
            and [B, N - dec_start].
        enc_len (int): encoder sequence length (sorted positions
            ``[0, enc_len)``).
        dec_start (int): first sorted position the decoder predicts
            (positions ``[dec_start, N)``).
        kernel (AttentionKernel): the kernel the masks are built for.
        encoder_attention, decoder_attention, cross_attention
            (MaskedAttention): what the layers call, ``(q, k, v,
            num_heads, dropout_p) -> [B, Lq, C]``, under the encoder's,
            the decoder's and the cross rule's mask for the batch.
        encoder_mask, decoder_mask, cross_mask: those three masks, in the
            kernel's form.
        loss_mask (torch.Tensor): bool [B, N - dec_start], decoder positions
            that are predicted (not in the first segment).

    Args:
        token_rank (np.ndarray | torch.Tensor): int64 [B, N], on the host
            (a device tensor is copied back first, see ``host_array``).
        kernel (AttentionKernel): the kernel the masks are built for and
            the layers attend with (the model's for the batch's device:
            ``RandSAC.kernel_on``).
        trim_outer_segments (bool): leave the last segment out of the
            encoder and the first out of the decoder (training; default).
            False keeps all N tokens in both (the sequence lengths the
            paper's FLOPs table counts); the masks stay the same rules.
        device (torch.device | str | None): where the order and masks live
            (default: ``token_rank``'s device, the CPU for an array).
    """

    def __init__(self, token_rank, kernel, trim_outer_segments=True,
                 device=None):
        if device is None:
            device = token_rank.device if torch.is_tensor(token_rank) \
                else 'cpu'
        device = torch.device(device)
        self.kernel = kernel
        ranks = host_array(token_rank)
        order = np.argsort(ranks, axis=1, kind='stable')
        sorted_rank = np.take_along_axis(ranks, order, axis=1)
        if (sorted_rank[:, -1] < 1).any():
            raise ValueError('every layout needs at least 2 segments '
                             '(token_rank has a sample with one segment)')
        num_tokens = ranks.shape[1]
        if trim_outer_segments:
            last = sorted_rank[:, -1:]
            self.enc_len = num_tokens - int(
                (sorted_rank == last).sum(1).min())
            self.dec_start = int((sorted_rank == 0).sum(1).min())
        else:
            self.enc_len, self.dec_start = num_tokens, 0
        self.order = to_device(order, device)
        self.sorted_rank = to_device(sorted_rank, device)
        # One mask per sample even when all samples have equal segments:
        # a single broadcast mask was measured no faster
        # (docs/benchmarks/shared_mask_ab_cpu.json), so the batch has one
        # code path.
        # Sliced here, on the host's ints: code that reads a batch (a
        # compiled step among them) sees tensors only, whose sizes may vary
        # from batch to batch, never the ints themselves.
        self.encoder_order = self.order[:, :self.enc_len]
        self.decoder_order = self.order[:, self.dec_start:]
        self.encoder_rank = self.sorted_rank[:, :self.enc_len]
        self.decoder_rank = self.sorted_rank[:, self.dec_start:]
        self.loss_mask = self.decoder_rank >= 1
        enc, dec = self.encoder_rank, self.decoder_rank
        kernel = self.kernel
        self.encoder_attention = MaskedAttention(
            kernel, kernel.build_mask(encoder_rule, enc, enc))
        self.decoder_attention = MaskedAttention(
            kernel, kernel.build_mask(decoder_rule, dec, dec))
        self.cross_attention = MaskedAttention(
            kernel, kernel.build_mask(cross_rule, dec, enc))

    @property
    def encoder_mask(self):
        return self.encoder_attention.mask

    @property
    def decoder_mask(self):
        return self.decoder_attention.mask

    @property
    def cross_mask(self):
        return self.cross_attention.mask
