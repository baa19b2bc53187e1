"""Masked multi-head attention in three kernels.

The masked layers (``SegmentCausalLayer``, ``RandSACDecoderLayer``) call
:func:`multihead_attention`, which picks the kernel by the mask's type
(``SegmentBatch(attention=...)`` builds the masks):

- a boolean mask goes to ``F.scaled_dot_product_attention``, under an
  explicit list of its backends (``sdpa_backends``), never torch's own
  pick: on an H100 that is cuDNN, whose masked backward gives NaN
  gradients for rows with a logsumexp below -88.7 at lengths of 64 mod 128
  (pytorch#196678), lengths RandSAC's blob layouts reach in any step. The
  default, ``('efficient', 'flash')``, runs memory-efficient attention on a
  GPU (flash takes no mask there) and the flash kernel on a CPU (the only
  fused CPU kernel). cuDNN runs only once ``sdpa_check.check_sdpa_backends``
  has cleared it on the device;
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
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.flex_attention import BlockMask, flex_attention

__all__ = ['ATTENTION_KERNELS', 'DEFAULT_SDPA_BACKENDS', 'SDPA_BACKENDS',
           'attention_dropout', 'attention_output', 'backend_sdpa',
           'explicit_attention', 'multihead_attention', 'sdpa_backend_list']

# The kernels above, by name, each with the mask form ``SegmentBatch``
# builds for it: 'sdpa' boolean masks, 'explicit' additive float32 masks,
# 'flex' BlockMasks.
ATTENTION_KERNELS = ('sdpa', 'explicit', 'flex')

# SDPA's backends by the names configs give (``sdpa_backends``), in the
# order of preference a list states.
SDPA_BACKENDS = {
    'efficient': SDPBackend.EFFICIENT_ATTENTION,
    'flash': SDPBackend.FLASH_ATTENTION,
    'cudnn': SDPBackend.CUDNN_ATTENTION,
    'math': SDPBackend.MATH,
}
DEFAULT_SDPA_BACKENDS = ('efficient', 'flash')


def sdpa_backend_list(names):
    """The SDPA backends of ``names`` (a config's ``sdpa_backends``).

    Args:
        names (Sequence[str]): a non-empty list of ``SDPA_BACKENDS`` keys,
            most preferred first, none twice.

    Returns:
        tuple[SDPBackend]: in the same order.

    Raises:
        ValueError: naming the argument and the allowed names.
    """
    if isinstance(names, str) or not names or \
            any(n not in SDPA_BACKENDS for n in names) or \
            len(set(names)) != len(names):
        raise ValueError(
            f'sdpa_backends must be a non-empty list of {tuple(SDPA_BACKENDS)}'
            f' (most preferred first, none twice), got {names!r}')
    return tuple(SDPA_BACKENDS[n] for n in names)


DEFAULT_SDPA_BACKEND_LIST = sdpa_backend_list(DEFAULT_SDPA_BACKENDS)


def multihead_attention(q, k, v, num_heads, mask, dropout_p=0.0,
                        sdpa_backends=DEFAULT_SDPA_BACKEND_LIST):
    """Scaled dot-product attention over heads.

    Args:
        q (torch.Tensor): [B, Lq, C]; k, v: [B, Lk, C].
        mask (torch.Tensor | BlockMask | None): [B or 1, 1, Lq, Lk]; bool
            (True = attend) for the SDPA kernel, a float32 additive bias (0
            = attend, -inf = blocked) for the explicit kernel, or a
            flex_attention ``BlockMask``.
        sdpa_backends (tuple[SDPBackend]): the backends a boolean mask may
            run on, most preferred first (see ``sdpa_backend_list``). The
            list is applied at every call, so activation checkpointing's
            recomputation runs the same kernel.

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
        out = backend_sdpa(heads(q), heads(k), heads(v), mask, dropout_p,
                           sdpa_backends)
    return out.transpose(1, 2).reshape(batch, len_q, channels)


def backend_sdpa(q, k, v, mask, dropout_p, backends):
    """``F.scaled_dot_product_attention`` on the first of ``backends`` that
    takes these inputs; none: an error naming ``sdpa_backends`` (torch
    would say only "No available kernel").

    Args:
        q (torch.Tensor): [B, h, Lq, d]; k, v: [B, h, Lk, d].
        mask (torch.Tensor | None): bool [B or 1, 1, Lq, Lk].
        backends (tuple[SDPBackend]): most preferred first.
    """
    with sdpa_kernel(list(backends), set_priority=True):
        if torch.compiler.is_compiling():
            return F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, dropout_p=dropout_p)
        try:
            return F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, dropout_p=dropout_p)
        except RuntimeError as e:
            if 'kernel' not in str(e) and 'backend' not in str(e):
                raise
            names = [n for n, b in SDPA_BACKENDS.items() if b in backends]
            raise RuntimeError(
                f'masked attention: none of sdpa_backends {names} runs '
                f'{q.dtype} on {q.device.type} with dropout {dropout_p} '
                f'(torch: {str(e).splitlines()[0]}); on a CPU the fused '
                "kernel is 'flash' (no dropout), on a GPU 'efficient'; "
                "'math' runs everything, unfused") from e


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
