"""An attention kernel: the mask form it takes and how it attends.

The masked layers of RandSAC (encoder, decoder, two-stream query stream)
never look at a mask themselves. ``SegmentBatch`` asks the batch's kernel
for its three masks (:meth:`AttentionKernel.build_mask`, from the rules in
:mod:`.rules`), and each layer hands a mask back to the same kernel
(:meth:`AttentionKernel.attend`). A kernel is one registered class in one
file: 'sdpa', 'explicit' and 'flex' here, and a user's own from any module
imported before the model is built::

    @register_attention_kernel('masked_math')
    class MaskedMath(DenseMaskKernel):
        def dense_form(self, allowed):
            return allowed  # the boolean mask itself
        def attend(self, q, k, v, mask, dropout_p=0.0):
            ...  # [B, h, Lq, d]

A model names its kernel with ``attention=`` (a name, 'auto', or
``dict(type=name, **options)``); the numerical check
(:mod:`.numerical_check`), 'auto' and the acceptance run iterate over
``ATTENTION_KERNELS``.
"""
import functools

import torch

from ...extension_registry import Registry

__all__ = ['ATTENTION_KERNELS', 'AttentionKernel', 'DenseMaskKernel',
           'auto_kernel_name', 'build_attention_kernel',
           'register_attention_kernel']

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
