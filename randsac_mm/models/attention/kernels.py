"""Masked attention: the three mask rules of RandSAC and the kernels that
apply them.

What a token may see is stated once, by the rules below; each kernel is
one registered :class:`AttentionKernel` that builds its masks from the
rules in its own form (a dense boolean or additive mask, flex_attention's
``mask_mod``) and attends with them, so the kernels cannot disagree.
``SegmentBatch`` builds a batch's three masks with its kernel and hands
the layers one :class:`MaskedAttention` per rule; the layers never see a
mask or a kernel. Built in: 'explicit' (a CPU's 'auto'), 'flex' (CUDA,
opt-in) and 'sdpa' (a GPU's 'auto'); a user's kernel is one class in its
own module, registered before the model is built::

    @register_attention_kernel('masked_math')
    class MaskedMath(DenseMaskKernel):
        def dense_form(self, allowed):
            return allowed  # the boolean mask itself
        def attend(self, q, k, v, mask, dropout_p=0.0):
            ...  # [B, h, Lq, d]

A model names its kernel with ``attention=`` (a name, 'auto', or
``dict(type=name, **options)``); the numerical check
(:mod:`.numerical_check`), 'auto' and the acceptance run go through
``ATTENTION_KERNELS`` in registration order.

The rules. ``r`` is the serialization step of a token's segment
(``token_rank``); tokens run through their segments in prediction order.

- encoder self-attention: ``r_key <= r_query`` (own and earlier segments);
- decoder self-attention: ``1 <= r_key <= r_query`` (own and earlier
  *target* segments), and every token itself, so no row is empty;
- cross-attention (decoder to encoder): ``r_key < r_query`` (strictly
  earlier segments).

Each rule is a function of the query's and the key's rank and position
(any broadcastable tensors). Why the first segment is special in
cross-attention: when segment sizes differ across a batch, the decoder's
sequences start at the batch's smallest first segment, so a few samples
keep first-segment queries. Such a row could see no encoder token at all,
and a fully masked row gives NaN in softmax, so it reads the first segment
instead; it is never predicted (``SegmentBatch.loss_mask``) and no other
query attends to it.
"""
import functools

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.flex_attention import BlockMask, flex_attention

from ...extension_registry import Registry

__all__ = ['ATTENTION_KERNELS', 'AttentionKernel', 'DEFAULT_SDPA_BACKENDS',
           'DenseMaskKernel', 'ExplicitKernel', 'FLEX_BLOCK_SIZE',
           'FlexKernel', 'MaskedAttention', 'SDPA_BACKENDS', 'SDPAKernel',
           'auto_kernel_name', 'build_attention_kernel',
           'compiled_flex_attention', 'cross_rule', 'decoder_rule',
           'encoder_rule', 'explicit_attention', 'register_attention_kernel',
           'sdpa_backend_list']


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


# --- Kernels: the interface, the registry, building one ---------------

# attention name -> AttentionKernel subclass.
ATTENTION_KERNELS = Registry('attention')


def register_attention_kernel(name):
    """Class decorator: makes an :class:`AttentionKernel` subclass the kernel
    ``attention=name``."""
    return lambda cls: ATTENTION_KERNELS.register_class(name, cls,
                                                        AttentionKernel)


class AttentionKernel:
    """One way to compute masked multi-head attention.

    A subclass's ``__init__`` takes its options as keyword arguments and
    refuses a bad one (a ValueError naming it); the base takes none.

    Attributes:
        name (str): its ``attention=`` name (set by the decorator).
        auto_devices (tuple[str]): the device types on which
            ``attention='auto'`` picks this kernel (the first registered
            kernel that names a device type wins).
    """
    name = None
    auto_devices = ()

    def build_mask(self, rule, query_rank, key_rank):
        """The mask of ``rule`` for a batch, in this kernel's form.

        Args:
            rule (Callable): ``rule(query_rank, key_rank, query_pos,
                key_pos) -> bool``, one of :mod:`.rules`.
            query_rank (torch.Tensor): int64 [B, Lq], the serialization
                step of each query token.
            key_rank (torch.Tensor): int64 [B, Lk].

        Returns:
            what :meth:`attend` takes as ``mask`` for [B, h, Lq, Lk].
        """
        raise NotImplementedError

    def attend(self, q, k, v, mask, dropout_p=0.0):
        """Masked attention over heads.

        Args:
            q (torch.Tensor): [B, h, Lq, d]; k, v: [B, h, Lk, d].
            mask: from :meth:`build_mask`.
            dropout_p (float): dropout on the attention weights.

        Returns:
            torch.Tensor: [B, h, Lq, d], in v's dtype.
        """
        raise NotImplementedError

    def unavailable(self, device):
        """Why a training step (forward and backward) cannot run on
        ``device``, or None when it can."""
        return None

    def check_variants(self):
        """The rows this kernel adds to the numerical check: (label, kernel)
        pairs, one per way it can run (SDPA: one per backend)."""
        return [(self.name, self)]

    def variants_to_clear(self, device):
        """The labels of :meth:`check_variants` that must pass the
        low-logsumexp check on ``device`` before a step runs there
        (``numerical_check.clear_kernel``); none by default."""
        return ()

    def refusal(self, label):
        """The start of the error when variant ``label`` failed its
        clearance: what in the model's config asked for it."""
        return f'attention={self.name!r}'

    def remedy(self, label):
        """What to change when variant ``label`` failed its clearance."""
        return f'choose another attention kernel than {self.name!r}'

    def __repr__(self):
        options = ', '.join(f'{k}={v!r}' for k, v in vars(self).items())
        return f'{type(self).__name__}({options})'


class DenseMaskKernel(AttentionKernel):
    """A kernel whose mask is a dense [B, 1, Lq, Lk] tensor made from the
    boolean mask of a rule (True = attend): a subclass gives its form."""

    def build_mask(self, rule, query_rank, key_rank):
        device = query_rank.device
        query_pos = torch.arange(query_rank.shape[1], device=device)
        key_pos = torch.arange(key_rank.shape[1], device=device)
        allowed = rule(query_rank[:, :, None], key_rank[:, None, :],
                       query_pos[:, None], key_pos[None, :])
        return self.dense_form(allowed.unsqueeze(1))

    def dense_form(self, allowed):
        """This kernel's mask from a boolean one.

        Args:
            allowed (torch.Tensor): bool [B or 1, 1, Lq, Lk], True where a
                query may attend to a key.
        """
        raise NotImplementedError


def _frozen(value):
    """A hashable copy of an option (lists become tuples)."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    return value


@functools.lru_cache(maxsize=None)
def _cached_kernel(cls, options):
    # Keyed on the class, not the name: a name registered again with
    # force=True builds the new class.
    return cls(**dict(options))


def auto_kernel_name(device_type):
    """The kernel ``attention='auto'`` takes on ``device_type``: the first
    registered kernel whose ``auto_devices`` names it.

    Raises:
        ValueError: no kernel names it.
    """
    for name, cls in ATTENTION_KERNELS.items():
        if device_type in cls.auto_devices:
            return name
    claimed = {name: cls.auto_devices for name, cls in
               ATTENTION_KERNELS.items() if cls.auto_devices}
    raise ValueError(
        f"attention='auto' has no kernel for {device_type!r} devices (auto "
        f'picks by device: {claimed}); give attention one of '
        f'{tuple(ATTENTION_KERNELS)}')


def build_attention_kernel(attention, device_type=None, defaults=None):
    """The kernel a model's ``attention`` names, built once per setting (the
    same object for the same name and options, so a compiled step sees one
    kernel).

    Args:
        attention (str | dict | AttentionKernel): a name of
            ``ATTENTION_KERNELS``; 'auto' (the kernel for ``device_type``,
            see :func:`auto_kernel_name`); ``dict(type=name, **options)``;
            or a kernel, returned as it is.
        device_type (str | None): where the step runs ('auto' needs it).
        defaults (dict[str, dict] | None): options per kernel name, under
            those of a dict ``attention`` (a model's ``sdpa_backends``
            are ``{'sdpa': {'backends': ...}}``).

    Returns:
        AttentionKernel

    Raises:
        ValueError: an unknown name, or an option the kernel refuses.
    """
    if isinstance(attention, AttentionKernel):
        return attention
    options = {}
    if isinstance(attention, dict):
        options = dict(attention)
        attention = options.pop('type', None)
    if attention == 'auto':
        if device_type is None:
            raise ValueError("attention='auto' needs the device type")
        attention = auto_kernel_name(device_type)
    if attention not in ATTENTION_KERNELS:
        raise ValueError(f"attention must be 'auto' or one of "
                         f'{tuple(ATTENTION_KERNELS)} (or dict(type=name, '
                         f'**options)), got {attention!r}')
    merged = dict((defaults or {}).get(attention, {}), **options)
    cls = ATTENTION_KERNELS.get(attention)
    try:
        return _cached_kernel(cls, _frozen(merged))
    except TypeError as error:  # an option the kernel does not take
        raise ValueError(f'attention {attention!r}: {error}') from None


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


# --- 'explicit': ``softmax(q k^T / sqrt(d) + bias) v`` with an additive mask.
#
# RandSAC's sequences are short (64 to 196 tokens), and there the CPU flash
# kernel's backward, run block by block, is the slowest op of a bf16 step:
# two batched matmuls and one softmax are faster
# (the throughput benchmark, docs/performance.md), so 'auto' takes this kernel
# on a CPU.


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


@register_attention_kernel('explicit')
class ExplicitKernel(DenseMaskKernel):
    """Its mask: float32 [B, 1, Lq, Lk], 0 where a query may attend and
    -inf where it may not."""
    auto_devices = ('cpu', )

    def dense_form(self, allowed):
        bias = torch.zeros(allowed.shape, device=allowed.device)
        return bias.masked_fill_(~allowed, float('-inf'))

    def attend(self, q, k, v, mask, dropout_p=0.0):
        return explicit_attention(q, k, v, mask, dropout_p)


# --- 'flex': ``flex_attention`` with block masks, which applies the rules
# inside one fused kernel. For CUDA (opt-in): torch has no flex_attention
# backward on a CPU, and eager flex runs a dense reference.

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


# --- 'sdpa': ``F.scaled_dot_product_attention`` with boolean masks, under an
# explicit list of its backends, never torch's own pick (on an H100 that is
# cuDNN, whose masked backward can give NaN gradients: docs/performance.md,
# "Masked attention").
#
# The default list, ``('efficient', 'flash')``, runs memory-efficient
# attention on a GPU (flash takes no mask there) and the flash kernel on a
# CPU (the only fused CPU kernel). A list naming 'cudnn' runs only on a
# device where cuDNN has passed the low-logsumexp check
# (``numerical_check.clear_kernel``).

# SDPA's backends by the names configs give (``sdpa_backends``), in the
# order of preference a list states.
SDPA_BACKENDS = {
    'efficient': SDPBackend.EFFICIENT_ATTENTION,
    'flash': SDPBackend.FLASH_ATTENTION,
    'cudnn': SDPBackend.CUDNN_ATTENTION,
    'math': SDPBackend.MATH,
}
DEFAULT_SDPA_BACKENDS = ('efficient', 'flash')
# The backend whose use needs the low-logsumexp check first.
UNCLEARED = 'cudnn'


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


@register_attention_kernel('sdpa')
class SDPAKernel(DenseMaskKernel):
    """Args:
        backends (Sequence[str]): ``SDPA_BACKENDS`` names, most preferred
            first (a model's ``sdpa_backends``). The list is applied at
            every call, so activation checkpointing's recomputation runs
            the same backend.
    """
    auto_devices = ('cuda', 'xpu', 'mps')

    def __init__(self, backends=DEFAULT_SDPA_BACKENDS):
        self.backend_list = sdpa_backend_list(backends)
        self.backends = tuple(backends)

    def dense_form(self, allowed):
        return allowed

    def attend(self, q, k, v, mask, dropout_p=0.0):
        """``F.scaled_dot_product_attention`` on the first backend of the
        list that takes these inputs; none: an error naming
        ``sdpa_backends`` (torch would say only "No available kernel")."""
        with sdpa_kernel(list(self.backend_list), set_priority=True):
            if torch.compiler.is_compiling():
                return F.scaled_dot_product_attention(
                    q, k, v, attn_mask=mask, dropout_p=dropout_p)
            try:
                return F.scaled_dot_product_attention(
                    q, k, v, attn_mask=mask, dropout_p=dropout_p)
            except RuntimeError as e:
                if 'kernel' not in str(e) and 'backend' not in str(e):
                    raise
                raise RuntimeError(
                    f'masked attention: none of sdpa_backends '
                    f'{list(self.backends)} runs {q.dtype} on '
                    f'{q.device.type} with dropout {dropout_p} (torch: '
                    f'{str(e).splitlines()[0]}); on a CPU the fused kernel '
                    "is 'flash' (no dropout), on a GPU 'efficient'; 'math' "
                    'runs everything, unfused') from e

    def check_variants(self):
        """One row per backend of ``SDPA_BACKENDS``, each alone."""
        return [(f'sdpa:{name}', SDPAKernel((name, )))
                for name in SDPA_BACKENDS]

    def variants_to_clear(self, device):
        if torch.device(device).type == 'cuda' and \
                UNCLEARED in self.backends:
            return (f'sdpa:{UNCLEARED}', )
        return ()

    def refusal(self, label):
        return f'sdpa_backends names {label.split(":")[1]!r}'

    def remedy(self, label):
        return (f'remove {label.split(":")[1]!r} from the model\'s '
                f'sdpa_backends (default {DEFAULT_SDPA_BACKENDS})')
