"""Numerical check of the attention kernels, and the clearance a kernel
variant needs before a step runs on a device (cuDNN's).

One case is what RandSAC's encoder computes: a segment-causal mask
(segments of ``SEGMENT`` tokens, each token attending to its own and
earlier segments), bf16, forward and backward, compared with float32 math
on the same (bf16-rounded) inputs. Two kinds of rows:

- 'normal': random queries and keys;
- 'low-lse': every logit about -120, so each row's logsumexp is below
  -88.7 (float32's ``log`` of its smallest normal number): cuDNN's failing
  case (docs/performance.md, "Masked attention").

:func:`attention_check` runs the table over every registered kernel's
variants (the GPU test and the GPU acceptance run);
:func:`clear_kernel` is the guard a model calls for a device at its first
batch there (``ModelAttention.on``: RandSAC and the pyramid): a variant
the kernel names in ``variants_to_clear`` (SDPA's 'cudnn' on CUDA) runs
only where it passed the low-lse case.
"""
import functools

import torch

from ..utils.segment_batch import encoder_rule
from .kernels import (
    ATTENTION_KERNELS,
    DEFAULT_SDPA_BACKENDS,
    SDPA_BACKENDS,
    UNCLEARED,
    FlexKernel,
    SDPAKernel,
    build_attention_kernel,
)

__all__ = ['CHECK_LENGTHS', 'ROWS', 'attention_check', 'check_labels',
           'check_variants', 'clear_kernel', 'kernel_case', 'kernel_variant',
           'unavailable', 'variants_to_clear']

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
# The reference every row is compared with.
REFERENCE = SDPAKernel(('math', ))


# --- What the check asks of a kernel: defaults, and the built-in kernels'
# own. A user's kernel that needs other answers registers them
# (``check_variants.register(MyKernel)``).

@functools.singledispatch
def check_variants(kernel):
    """The rows a kernel adds to the check: (label, kernel) pairs, one per
    way it can run."""
    return [(kernel.name, kernel)]


@check_variants.register
def _(kernel: SDPAKernel):
    """One row per backend of ``SDPA_BACKENDS``, each alone."""
    return [(f'sdpa:{name}', SDPAKernel((name, ))) for name in SDPA_BACKENDS]


@functools.singledispatch
def unavailable(kernel, device):
    """Why a training step (forward and backward) of ``kernel`` cannot run
    on ``device``, or None when it can."""
    return None


@unavailable.register
def _(kernel: FlexKernel, device):
    if torch.device(device).type != 'cuda':
        return 'flex_attention has no backward on a CPU'
    return None


@functools.singledispatch
def variants_to_clear(kernel, device):
    """The labels of :func:`check_variants` that must pass the low-logsumexp
    check on ``device`` before a step of ``kernel`` runs there; none by
    default."""
    return ()


@variants_to_clear.register
def _(kernel: SDPAKernel, device):
    if torch.device(device).type == 'cuda' and UNCLEARED in kernel.backends:
        return (f'sdpa:{UNCLEARED}', )
    return ()


@functools.singledispatch
def _refusal_and_remedy(kernel, label):
    """What in the model's config asked for variant ``label``, and what to
    change when it failed its clearance."""
    return (f'attention={kernel.name!r}',
            f'choose another attention kernel than {kernel.name!r}')


@_refusal_and_remedy.register
def _(kernel: SDPAKernel, label):
    backend = label.split(':')[1]
    return (f'sdpa_backends names {backend!r}',
            f"remove {backend!r} from the model's sdpa_backends (default "
            f'{DEFAULT_SDPA_BACKENDS})')


def check_labels():
    """Every variant of every registered kernel, by label ('sdpa:flash',
    'explicit', ...), in registration order."""
    return [label for name in ATTENTION_KERNELS
            for label, _ in check_variants(build_attention_kernel(name))]


def kernel_variant(label):
    """The kernel a check label names.

    Raises:
        ValueError: an unknown label, listing the known ones.
    """
    name = label.split(':', 1)[0]
    if name in ATTENTION_KERNELS:
        for known, kernel in check_variants(build_attention_kernel(name)):
            if known == label:
                return kernel
    raise ValueError(f'kernel must be one of {check_labels()}, got '
                     f'{label!r}')


def kernel_case(length, rows, device, batch=8, heads=12, head_dim=64,
                seed=0):
    """Inputs of one check, float32: q, k, v [B, h, L, d], the upstream
    gradient of the output, and the segment ranks [B, L] of the tokens."""
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
    rank = (torch.arange(length) // SEGMENT).expand(batch, length)
    return [t.to(device) for t in (q, k, v, grad, rank)]


def run_kernel(kernel, q, k, v, grad, rank):
    """Output and input gradients of one kernel on the encoder's mask, in
    the dtype given, with gradients on and autocast off whatever the
    caller runs under (a model clears its kernel at its first batch,
    which may run under ``torch.no_grad`` or autocast).

    Args:
        kernel (AttentionKernel): the kernel.
        q, k, v, grad (torch.Tensor): [B, h, L, d], the dtype to run in.
        rank (torch.Tensor): int64 [B, L], segment of each token.

    Returns:
        list[torch.Tensor]: out, grad_q, grad_k, grad_v.
    """
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    with torch.enable_grad(), torch.autocast(q.device.type, enabled=False):
        mask = kernel.build_mask(encoder_rule, rank, rank)
        out = kernel.attend(q, k, v, mask)
        out.backward(grad)
    return [out.detach(), q.grad, k.grad, v.grad]


def relative_error(value, reference):
    """max |value - reference| / max |reference|, in float32."""
    value, reference = value.float(), reference.float()
    scale = reference.abs().max().clamp(min=1e-30)
    return float((value - reference).abs().max() / scale)


def check_case(label, length, rows, device, dtype=torch.bfloat16, **shape):
    """One row of the table: kernel variant ``label`` in ``dtype`` against
    float32 math.

    Returns:
        dict: kernel (the label), length, rows, ``finite`` (no NaN or inf
        in the output and the three gradients), ``nan`` (how many NaN
        values), ``error`` (the largest relative error of the four against
        float32 math), ``ok`` (finite and within the ``TOLERANCE`` of its
        rows), or ``skipped`` with why.
    """
    row = dict(kernel=label, length=length, rows=rows)
    device = torch.device(device)
    kernel = kernel_variant(label)
    why = unavailable(kernel, device)
    if why:
        return dict(row, skipped=why)
    q, k, v, grad, rank = kernel_case(length, rows, device, **shape)
    low = [t.to(dtype) for t in (q, k, v, grad)]
    try:
        got = run_kernel(kernel, *low, rank)
    except RuntimeError as e:  # a backend that does not run here
        return dict(row, skipped=str(e).splitlines()[0])
    reference = run_kernel(REFERENCE, *(t.float() for t in low), rank)
    nan = sum(int(t.isnan().sum()) for t in got)
    finite = all(bool(t.isfinite().all()) for t in got)
    error = max(relative_error(a, b) for a, b in zip(got, reference))
    return dict(row, finite=finite, nan=nan, error=error,
                ok=finite and error <= TOLERANCE[rows])


def attention_check(device, kernels=None, lengths=CHECK_LENGTHS, rows=ROWS,
                    dtype=torch.bfloat16, **shape):
    """Every kernel variant at every length with both kinds of rows.

    Args:
        device (str | torch.device): where to run.
        kernels (Sequence[str] | None): labels of :func:`check_labels`
            (None: all of them).
        lengths (Sequence[int]): sequence lengths.
        rows (Sequence[str]): of ``ROWS``.
        dtype (torch.dtype): the precision under test.
        **shape: ``batch``, ``heads``, ``head_dim`` of :func:`kernel_case`.

    Returns:
        list[dict]: one :func:`check_case` row each.
    """
    kernels = check_labels() if kernels is None else kernels
    return [check_case(label, length, kind, device, dtype, **shape)
            for label in kernels for length in lengths for kind in rows]


@functools.lru_cache(maxsize=None)
def _clearance_failures(label, device):
    """The low-lse cases variant ``label`` fails on ``device`` (cached per
    variant and device)."""
    found = attention_check(device, [label], lengths=(64, 192),
                            rows=('low-lse', ), batch=2, heads=2)
    return tuple(r for r in found if not r.get('ok'))


def clear_kernel(kernel, device):
    """Refuses a kernel with a variant that has not passed the low-lse
    check on ``device`` (run once per variant and device, a few ms).

    Args:
        kernel (AttentionKernel): a model's kernel.
        device (torch.device | str): where the step runs.

    Raises:
        RuntimeError: naming the model's setting, the failed case and what
            to do.
    """
    device = torch.device(device)
    labels = variants_to_clear(kernel, device)
    if not labels:
        return
    if device.type == 'cuda' and device.index is None:
        device = torch.device('cuda', torch.cuda.current_device())
    for label in labels:
        failures = _clearance_failures(label, device)
        if not failures:
            continue
        first = failures[0]
        why = first.get('skipped') or (
            f"{first['nan']} NaN values" if not first['finite'] else
            f"a relative error of {first['error']:.3g}")
        name = torch.cuda.get_device_name(device) \
            if device.type == 'cuda' else device.type
        refusal, remedy = _refusal_and_remedy(kernel, label)
        raise RuntimeError(
            f'{refusal}, and on {device} ({name}, torch '
            f'{torch.__version__}, cuDNN {torch.backends.cudnn.version()}) '
            f'{label} fails the low-logsumexp check at length '
            f"{first['length']} ({why}; pytorch#196678): {remedy}")
