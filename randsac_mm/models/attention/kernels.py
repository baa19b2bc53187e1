"""Attention kernels: how masked multi-head attention is computed.

What a token may see is stated once, by the three rules of
``randsac_mm.models.utils.segment_batch``, which also builds a batch's
masks and the attention the layers call. A kernel says only which mask
form it takes (:meth:`AttentionKernel.build_mask`: a rule made into a dense
boolean or additive mask, or flex_attention's ``mask_mod``) and how it
attends with it (:meth:`AttentionKernel.attend`), so kernels cannot
disagree on what is masked. Built in: 'explicit' (a CPU's 'auto'), 'flex'
(CUDA, opt-in) and 'sdpa' (a GPU's 'auto'); a user's kernel is one class
in its own module, registered before the model is built::

    @register_attention_kernel('masked_math')
    class MaskedMath(DenseMaskKernel):
        def dense_form(self, allowed):
            return allowed  # the boolean mask itself
        def attend(self, q, k, v, mask, dropout_p=0.0):
            ...  # [B, h, Lq, d]

A model names its kernel with ``attention=`` (a name, 'auto', or
``dict(type=name, **options)``) and resolves it once, for its device
(``RandSAC``); the numerical check, which every kernel passes on the
device it runs on, is ``numerical_check``.
"""
import functools

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.flex_attention import BlockMask, flex_attention

from ...extension_registry import Registry

__all__ = ['ATTENTION_KERNELS', 'AttentionKernel', 'DEFAULT_SDPA_BACKENDS',
           'DenseMaskKernel', 'ExplicitKernel', 'FLEX_BLOCK_SIZE',
           'FlexKernel', 'SDPA_BACKENDS', 'SDPAKernel', 'UNCLEARED',
           'auto_kernel_name', 'build_attention_kernel',
           'compiled_flex_attention', 'explicit_attention',
           'register_attention_kernel', 'sdpa_backend_list']


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
                key_pos) -> bool``, one of ``segment_batch``'s three.
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
