"""Numerical check of the masked attention kernels, and cuDNN's clearance.

One case is what RandSAC's encoder computes: a segment-causal boolean mask
(segments of ``SEGMENT`` tokens, each token attending to its own and
earlier segments), bf16, forward and backward, compared with float32 math
on the same (bf16-rounded) inputs. Two kinds of rows:

- 'normal': random queries and keys;
- 'low-lse': every logit about -120, so each row's logsumexp is below
  -88.7 (float32's ``log`` of its smallest normal number): the condition
  under which cuDNN's backward gives NaN ``grad_q`` at lengths of 64 mod
  128 (pytorch#196678; seen on an H100 with torch 2.11 and cuDNN 9.19 at
  L = 64, 192 and 320, docs/benchmarks/gpu/README.md).

:func:`attention_check` runs the whole table (the GPU test and
``tools/benchmarks/gpu_acceptance.py``); :func:`check_sdpa_backends` is the
guard a model calls before a step: a list that names 'cudnn' runs only on a
device where cuDNN passed the low-lse case.
"""
import functools

import torch

from .attention import (
    SDPA_BACKENDS,
    backend_sdpa,
    compiled_flex_attention,
    explicit_attention,
)
from .segment_batch import encoder_rule, partial_block_mask

__all__ = ['CHECK_LENGTHS', 'attention_check', 'check_sdpa_backends',
           'kernel_case']

# The lengths: odd ones, 64 mod 128 (cuDNN's failing case), the
# main config's 135 (144 tokens less a 9-token segment) and 240.
CHECK_LENGTHS = (63, 64, 135, 192, 195, 240)
ROWS = ('normal', 'low-lse')
SEGMENT = 4  # tokens per segment
LOW_LOGIT = -120.0
# Largest relative error against float32 that passes, by kind of row.
# Normal rows: 0.3-0.8% measured on an H100 in bf16; a wrong kernel is far
# above 5%. Low-lse rows are judged on finiteness alone: logits of -120
# rounded to bf16 are off by up to 0.5, so every kernel's weights, and
# outputs, differ from float32's by up to about 20% (on the CPU: flash 8%,
# explicit 18%, math 0.3%, whose matmuls accumulate in float32).
TOLERANCE = {'normal': 0.05, 'low-lse': float('inf')}


def kernel_case(length, rows, device, batch=8, heads=12, head_dim=64,
                seed=0):
    """Inputs of one check, float32: q, k, v [B, h, L, d], the upstream
    gradient of the output, and the segment ranks [L] of the tokens."""
    g = torch.Generator().manual_seed(seed)

    def randn(*shape):
        return torch.randn(*shape, generator=g)

    shape = (batch, heads, length, head_dim)
    v, grad = randn(*shape), randn(*shape)
    if rows == 'normal':
        q, k = randn(*shape), randn(*shape)
    else:  # every logit q.k / sqrt(d) close to LOW_LOGIT
        u = torch.nn.functional.normalize(randn(head_dim), dim=0)
        k = u + 0.01 * randn(*shape)
        q = (LOW_LOGIT * head_dim**0.5) * u.expand(shape).clone()
    rank = torch.arange(length) // SEGMENT
    return [t.to(device) for t in (q, k, v, grad, rank)]


def run_kernel(kernel, q, k, v, grad, rank):
    """Output and input gradients of one kernel.

    Args:
        kernel (str): 'sdpa:<backend>' (a ``SDPA_BACKENDS`` name),
            'explicit' or 'flex'.
        q, k, v, grad (torch.Tensor): [B, h, L, d], the dtype to run in.
        rank (torch.Tensor): int64 [L], segment of each token.

    Returns:
        list[torch.Tensor]: out, grad_q, grad_k, grad_v.
    """
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    allowed = encoder_rule(rank[:, None], rank[None, :])  # [L, L]
    if kernel.startswith('sdpa:'):
        backend = SDPA_BACKENDS[kernel[len('sdpa:'):]]
        out = backend_sdpa(q, k, v, allowed, 0.0, (backend, ))
    elif kernel == 'explicit':
        bias = torch.zeros(allowed.shape, device=q.device)
        bias.masked_fill_(~allowed, float('-inf'))
        out = explicit_attention(q, k, v, bias)
    elif kernel == 'flex':
        def mask_mod(b, h, i, j):
            return encoder_rule(rank[i], rank[j])
        length = q.shape[2]
        out = compiled_flex_attention()(
            q, k, v, block_mask=partial_block_mask(mask_mod, length, length,
                                                   q.device))
    else:
        raise ValueError(f"kernel must be 'sdpa:<backend>' (backends "
                         f"{tuple(SDPA_BACKENDS)}), 'explicit' or 'flex', "
                         f'got {kernel!r}')
    out.backward(grad)
    return [out.detach(), q.grad, k.grad, v.grad]


def relative_error(value, reference):
    """max |value - reference| / max |reference|, in float32."""
    value, reference = value.float(), reference.float()
    scale = reference.abs().max().clamp(min=1e-30)
    return float((value - reference).abs().max() / scale)


def check_case(kernel, length, rows, device, dtype=torch.bfloat16, **shape):
    """One row of the table: the kernel in ``dtype`` against float32 math.

    Returns:
        dict: kernel, length, rows, ``finite`` (no NaN or inf in the output
        and the three gradients), ``nan`` (how many NaN values), ``error``
        (the largest relative error of the four against float32 math),
        ``ok`` (finite and within the ``TOLERANCE`` of its rows), or
        ``skipped`` with why.
    """
    row = dict(kernel=kernel, length=length, rows=rows)
    device = torch.device(device)
    if kernel == 'flex' and device.type != 'cuda':
        return dict(row, skipped='flex_attention has no backward on a CPU')
    q, k, v, grad, rank = kernel_case(length, rows, device, **shape)
    low = [t.to(dtype) for t in (q, k, v, grad)]
    try:
        got = run_kernel(kernel, *low, rank)
    except RuntimeError as e:  # a backend that does not run here
        return dict(row, skipped=str(e).splitlines()[0])
    reference = run_kernel('sdpa:math', *(t.float() for t in low), rank)
    nan = sum(int(t.isnan().sum()) for t in got)
    finite = all(bool(t.isfinite().all()) for t in got)
    error = max(relative_error(a, b) for a, b in zip(got, reference))
    return dict(row, finite=finite, nan=nan, error=error,
                ok=finite and error <= TOLERANCE[rows])


def attention_check(device, kernels, lengths=CHECK_LENGTHS, rows=ROWS,
                    dtype=torch.bfloat16, **shape):
    """Every kernel at every length with both kinds of rows.

    Args:
        device (str | torch.device): where to run.
        kernels (Sequence[str]): see :func:`run_kernel`.
        lengths (Sequence[int]): sequence lengths.
        rows (Sequence[str]): of ``ROWS``.
        dtype (torch.dtype): the precision under test.
        **shape: ``batch``, ``heads``, ``head_dim`` of :func:`kernel_case`.

    Returns:
        list[dict]: one :func:`check_case` row each.
    """
    return [check_case(kernel, length, kind, device, dtype, **shape)
            for kernel in kernels for length in lengths for kind in rows]


@functools.lru_cache(maxsize=None)
def _cudnn_failures(device):
    """The low-lse cases cuDNN fails on ``device`` (cached per device)."""
    rows = attention_check(device, ['sdpa:cudnn'], lengths=(64, 192),
                           rows=('low-lse', ), batch=2, heads=2)
    return tuple(r for r in rows if not r.get('ok'))


def check_sdpa_backends(backends, device):
    """Refuses a backend list that names cuDNN on a device where cuDNN has
    not passed the low-lse check (run once per device, a few ms).

    Args:
        backends (tuple[SDPBackend]): a model's ``sdpa_backends``.
        device (torch.device): where the step runs.

    Raises:
        RuntimeError: naming ``sdpa_backends``, the failed case and what to
            do.
    """
    device = torch.device(device)
    if device.type != 'cuda' or SDPA_BACKENDS['cudnn'] not in backends:
        return
    if device.index is None:
        device = torch.device('cuda', torch.cuda.current_device())
    failures = _cudnn_failures(device)
    if failures:
        first = failures[0]
        why = first.get('skipped') or (
            f"{first['nan']} NaN values" if not first['finite'] else
            f"a relative error of {first['error']:.3g}")
        raise RuntimeError(
            f"sdpa_backends names 'cudnn', and on {device} "
            f'({torch.cuda.get_device_name(device)}, torch '
            f'{torch.__version__}, cuDNN {torch.backends.cudnn.version()}) '
            f"cuDNN's masked attention fails the low-logsumexp check at "
            f"length {first['length']} ({why}; pytorch#196678): remove "
            "'cudnn' from the model's sdpa_backends (default "
            "('efficient', 'flash'))")
