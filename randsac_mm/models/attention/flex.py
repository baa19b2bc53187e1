"""'flex': ``flex_attention`` with block masks, which applies the rules
inside one fused kernel. For CUDA (opt-in): torch has no flex_attention
backward on a CPU, and eager flex runs a dense reference.
"""
import functools

import torch
from torch.nn.attention.flex_attention import BlockMask, flex_attention

from .kernel import AttentionKernel, register_attention_kernel

__all__ = ['FLEX_BLOCK_SIZE', 'FlexKernel', 'compiled_flex_attention']

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
    """A ``BlockMask`` that applies ``mask_mod`` in every block, on the
    cached structure of its shape (batch and heads broadcast).

    Every block is partial: RandSAC's 64 to 196 tokens fill one or two
    128-token blocks, so there is little to skip. The structure depends on
    the sequence lengths only; a batch wraps only its own mask_mod around
    it, which a compiled flex_attention takes without recompiling.
    """
    num, index = _all_blocks(q_len, kv_len, torch.device(device))
    return BlockMask.from_kv_blocks(num, index, BLOCK_SIZE=FLEX_BLOCK_SIZE,
                                    mask_mod=mask_mod,
                                    seq_lengths=(q_len, kv_len))


@functools.lru_cache(maxsize=1)
def compiled_flex_attention():
    """flex_attention compiled once: it is only fast when compiled (eager
    runs a dense reference). On a CPU, eager (forward only; tests)."""
    if not torch.cuda.is_available():
        return flex_attention
    return torch.compile(flex_attention, dynamic=True)


@register_attention_kernel('flex')
class FlexKernel(AttentionKernel):
    """Its mask: a ``BlockMask`` whose ``mask_mod`` calls the rule on the
    batch's ranks. No attention dropout."""

    def build_mask(self, rule, query_rank, key_rank):
        def mask_mod(b, h, q, k):
            return rule(query_rank[b, q], key_rank[b, k], q, k)
        return partial_block_mask(mask_mod, query_rank.shape[1],
                                  key_rank.shape[1], query_rank.device)

    def attend(self, q, k, v, mask, dropout_p=0.0):
        if dropout_p > 0.0:
            raise ValueError('attention dropout is not supported with '
                             "attention='flex'; use 'sdpa'")
        return compiled_flex_attention()(q, k, v, block_mask=mask)

    def unavailable(self, device):
        if torch.device(device).type != 'cuda':
            return 'flex_attention has no backward on a CPU'
        return None
