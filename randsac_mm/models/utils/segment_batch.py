"""Token order and attention masks of a batch of segment layouts.

Every mask is boolean, True where a query may attend to a key, shaped
``[B, 1, Lq, Lk]`` for ``F.scaled_dot_product_attention``. Tokens are
sorted by their serialization step (``token_rank``), so each sample's
sequence runs through its segments in prediction order.

Rules (``r`` is the serialization step of a token's segment):

- encoder self-attention: ``r_key <= r_query`` (own and earlier segments);
- decoder self-attention: ``1 <= r_key <= r_query`` (own and earlier
  *target* segments);
- cross-attention (decoder to encoder): ``r_key < r_query`` (strictly
  earlier segments).

The encoder drops the last segment and the decoder the first. When segment
sizes differ across the batch (blobs, shuffled), the sequences are cut at
the batch's smallest last/first segment, so a few samples keep some tokens of
their last segment in the encoder (no query may read them: harmless) or of
their first segment in the decoder. Such first-segment query rows could see
no encoder token at all, and a fully masked row gives NaN in softmax, so
they attend to the first segment instead; they are never predicted
(``loss_mask``) and no other query attends to them.
"""
import functools

import numpy as np
import torch

from .attention import ATTENTION_KERNELS, DEFAULT_SDPA_BACKEND_LIST

__all__ = ['SegmentBatch', 'gather_tokens']


# The three rules, on the serialization steps of a query and a key (any
# broadcastable tensors): dense masks and flex_attention's mask_mods both
# call them, so the kernels cannot disagree on what a token may see.
def encoder_rule(query_rank, key_rank):
    """Encoder self-attention: own and earlier segments."""
    return key_rank <= query_rank


def decoder_rule(query_rank, key_rank, same_token):
    """Decoder self-attention: own and earlier target segments (never the
    first); every token sees itself, so no row is empty."""
    return ((key_rank >= 1) & (key_rank <= query_rank)) | same_token


def cross_rule(query_rank, key_rank):
    """Decoder to encoder: strictly earlier segments. First-segment queries
    (kept by trimming to the batch's smallest first segment, never
    predicted) read the first segment instead of nothing."""
    return (key_rank < query_rank) | ((query_rank == 0) & (key_rank == 0))


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


FLEX_BLOCK_SIZE = 128  # flex_attention's default tile


@functools.lru_cache(maxsize=16)
def _all_blocks(q_len, kv_len, device):
    """kv_num_blocks [1, 1, nq] and kv_indices [1, 1, nq, nk] (int32) of a
    block mask whose every block is partial (the mask_mod decides)."""
    nq = -(-q_len // FLEX_BLOCK_SIZE)
    nk = -(-kv_len // FLEX_BLOCK_SIZE)
    num = torch.full((1, 1, nq), nk, dtype=torch.int32, device=device)
    index = torch.arange(nk, dtype=torch.int32, device=device)
    return num, index.expand(1, 1, nq, nk).contiguous()


def partial_block_mask(mask_mod, q_len, kv_len, device):
    """A flex_attention ``BlockMask`` that applies ``mask_mod`` in every
    block, on the cached structure of its shape (batch and heads
    broadcast)."""
    from torch.nn.attention.flex_attention import BlockMask
    num, index = _all_blocks(q_len, kv_len, torch.device(device))
    return BlockMask.from_kv_blocks(num, index, BLOCK_SIZE=FLEX_BLOCK_SIZE,
                                    mask_mod=mask_mod,
                                    seq_lengths=(q_len, kv_len))


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
    """Sorting and masks for ``token_rank`` [B, N] (tokens in raster order).

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
        enc_len (int): encoder sequence length (sorted positions
            ``[0, enc_len)``).
        dec_start (int): first sorted position the decoder predicts
            (positions ``[dec_start, N)``).
        encoder_mask, decoder_mask, cross_mask (torch.Tensor): bool masks,
            or their additive float32 form (0 / -inf) with
            ``attention='explicit'``, or flex_attention ``BlockMask``s with
            ``attention='flex'``.
        loss_mask (torch.Tensor): bool [B, N - dec_start], decoder positions
            that are predicted (not in the first segment).
        sdpa_backends (tuple[SDPBackend]): the backends the layers may run
            the 'sdpa' masks on, most preferred first.

    Args:
        token_rank (np.ndarray | torch.Tensor): int64 [B, N], on the host
            (a device tensor is copied back first, see ``host_array``).
        trim_outer_segments (bool): leave the last segment out of the
            encoder and the first out of the decoder (training; default).
            False keeps all N tokens in both (the sequence lengths the
            paper's FLOPs table counts); the masks stay the same rules.
        attention (str): the kernel the masks are built for, one of
            ``ATTENTION_KERNELS``.
        device (torch.device | str | None): where the order and masks live
            (default: ``token_rank``'s device, the CPU for an array).
        sdpa_backends (tuple[SDPBackend]): see Attributes (default:
            ``DEFAULT_SDPA_BACKENDS``; ``sdpa_backend_list`` makes one from
            names).
    """

    def __init__(self, token_rank, trim_outer_segments=True,
                 attention='sdpa', device=None,
                 sdpa_backends=DEFAULT_SDPA_BACKEND_LIST):
        if attention not in ATTENTION_KERNELS:
            raise ValueError(f'attention must be one of {ATTENTION_KERNELS},'
                             f' got {attention!r}')
        if device is None:
            device = token_rank.device if torch.is_tensor(token_rank) \
                else 'cpu'
        device = torch.device(device)
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
        self.attention = attention
        self.sdpa_backends = tuple(sdpa_backends)
        if attention == 'flex':
            self._flex_masks()
            return
        self.encoder_mask = self._kernel_form(self._encoder_mask())
        self.decoder_mask = self._kernel_form(self._decoder_mask())
        self.cross_mask = self._kernel_form(self._cross_mask())

    def _flex_masks(self):
        """The same three rules as ``mask_mod`` functions of block masks,
        over this batch's ranks. The block structure (every block partial:
        RandSAC's 64 to 196 tokens fill one or two 128-token blocks, so
        there is little to skip) depends on the sequence lengths only and
        is built once per shape; a batch only wraps its own mask_mods
        around it, which a compiled flex_attention takes without
        recompiling."""
        enc, dec = self.encoder_rank, self.decoder_rank

        def encoder(b, h, q, k):
            return encoder_rule(enc[b, q], enc[b, k])

        def decoder(b, h, q, k):
            return decoder_rule(dec[b, q], dec[b, k], q == k)

        def cross(b, h, q, k):
            return cross_rule(dec[b, q], enc[b, k])

        le, ld = enc.shape[1], dec.shape[1]
        self.encoder_mask = partial_block_mask(encoder, le, le, enc.device)
        self.decoder_mask = partial_block_mask(decoder, ld, ld, enc.device)
        self.cross_mask = partial_block_mask(cross, ld, le, enc.device)

    def _kernel_form(self, allowed):
        if self.attention == 'sdpa':
            return allowed
        bias = torch.zeros(allowed.shape, device=allowed.device)
        return bias.masked_fill_(~allowed, float('-inf'))

    def _encoder_mask(self):
        r = self.encoder_rank
        return encoder_rule(r[:, :, None], r[:, None, :]).unsqueeze(1)

    def _decoder_mask(self):
        r = self.decoder_rank
        own = torch.eye(r.shape[1], dtype=torch.bool, device=r.device)
        return decoder_rule(r[:, :, None], r[:, None, :], own).unsqueeze(1)

    def _cross_mask(self):
        q = self.decoder_rank[:, :, None]
        k = self.encoder_rank[:, None, :]
        return cross_rule(q, k).unsqueeze(1)
