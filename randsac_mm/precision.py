"""Which precision a run computes in: bf16 autocast on GPUs and on CPUs that
compute bf16 natively, float32 on other CPUs.

The one rule for every path that runs a model on a device (pretraining's
optimizer wrapper, the digit-scene UperNet and Mask R-CNN runs, the probes'
feature passes), so that each decides alike and says so alike.

A precision is asked for as one of ``PRECISIONS``:

- ``'auto'`` (the configs' default): bf16 autocast on CUDA; on a CPU, bf16
  where it has bf16 instructions (AMX or AVX512-BF16 on x86, the BF16
  extension on Arm), float32 where not. The environment variable
  ``RANDSAC_CPU_PRECISION`` (``'bfloat16'`` or ``'float32'``) decides a
  CPU's instead: the test suite sets it to float32, so that its recorded
  losses do not depend on the machine.
- ``'bfloat16'``: bf16 autocast on every device (``tools/train.py --amp``).
  A CPU without bf16 instructions emulates it, and a step takes longer than
  in float32 (``EMULATED_COST``): the run goes on with a warning naming the
  cost, not a refusal, since its numbers are right, only slow (one may want
  a GPU run's precision on a laptop, to reproduce it).
- ``'float32'``: no autocast on any device (``tools/train.py --fp32``).
"""
import contextlib
import os
from dataclasses import dataclass

import torch

__all__ = ['CPU_PRECISIONS', 'CPU_PRECISION_ENV', 'DTYPES', 'PRECISIONS',
           'Precision', 'check_request', 'cpu_bf16_instructions',
           'cpu_precision', 'resolve_precision']

PRECISIONS = ('auto', 'bfloat16', 'float32')
# What a CPU may be held to (RANDSAC_CPU_PRECISION, cpu_precision): 'auto'
# is what holding it to nothing gives.
CPU_PRECISIONS = PRECISIONS[1:]
DTYPES = ('bfloat16', 'float16')  # autocast dtypes (float16: CUDA only)
CPU_PRECISION_ENV = 'RANDSAC_CPU_PRECISION'
# One pretraining step of the ViT-T CIFAR setting in bf16 against float32
# on a CPU with AMX, oneDNN held to older instructions (ONEDNN_MAX_CPU_ISA
# AVX512_CORE and AVX2; docs/performance.md, "Precision on a CPU").
EMULATED_COST = ('2.6 (AVX-512) to 25 (AVX2) times the time of float32')


def cpu_bf16_instructions():
    """The instructions this CPU computes bf16 with, as torch reads them from
    the CPU (``torch.cpu.get_capabilities``, not a list of models): 'AMX',
    'AVX512-BF16', 'Arm BF16', or None where it has none."""
    capabilities = torch.cpu.get_capabilities()
    if capabilities.get('amx_bf16'):
        return 'AMX'
    if capabilities.get('avx512_bf16'):
        return 'AVX512-BF16'
    if capabilities.get('bf16'):  # Arm's BF16 extension
        return 'Arm BF16'
    return None


@dataclass(frozen=True)
class Precision:
    """A precision decided for a device.

    Attributes:
        dtype (torch.dtype | None): the autocast dtype; None: float32.
        reason (str): why, for the log.
        warning (str | None): a cost the run pays, to log as a warning.
    """
    dtype: object
    reason: str
    warning: object = None

    @property
    def name(self):
        """'bfloat16', 'float16' or 'float32'."""
        return str(self.dtype or torch.float32).replace('torch.', '')

    def describe(self, device_type):
        """One log line, e.g. 'bfloat16 autocast on the CPU: it computes
        bf16 natively (AMX)'."""
        where = 'the CPU' if device_type == 'cpu' else device_type.upper()
        what = 'float32' if self.dtype is None else f'{self.name} autocast'
        return f'precision: {what} on {where}: {self.reason}'

    def autocast(self, device_type):
        """``torch.autocast`` to this precision on ``device_type``: off
        for float32."""
        return torch.autocast(device_type, dtype=self.dtype or torch.bfloat16,
                              enabled=self.dtype is not None)

    def log(self, device_type, prefix=''):
        """Says it in mmengine's current log: the line of :meth:`describe`
        after ``prefix``, and the warning if there is one."""
        import logging

        from mmengine.logging import print_log
        print_log(prefix + self.describe(device_type), logger='current')
        if self.warning:
            print_log(self.warning, logger='current', level=logging.WARNING)


def _check(value, argument, allowed):
    if value not in allowed:
        raise ValueError(f'{argument} must be one of {allowed}, got '
                         f'{value!r}')


def check_request(precision, dtype='bfloat16'):
    """Refuses a precision not in ``PRECISIONS`` or a dtype not in
    ``DTYPES`` (ValueError naming the argument and the allowed values),
    before any device is known: an optimizer wrapper's arguments."""
    _check(dtype, 'dtype', DTYPES)
    _check(precision, 'precision', PRECISIONS)


def _cpu_precision_from_env():
    """``RANDSAC_CPU_PRECISION``'s precision, or None when it is unset."""
    value = os.environ.get(CPU_PRECISION_ENV)
    if not value:
        return None
    _check(value, CPU_PRECISION_ENV, CPU_PRECISIONS)
    return value


@contextlib.contextmanager
def cpu_precision(precision):
    """Within it, every CPU computes in ``precision`` where 'auto' is asked
    (``RANDSAC_CPU_PRECISION`` set, then restored): runs made on machines
    with and without bf16 instructions are then runs of one precision.

    Args:
        precision (str | None): 'float32' or 'bfloat16'; None: as before
            (the variable's, else the CPU's own).

    Raises:
        ValueError: an unknown precision, or ``RANDSAC_CPU_PRECISION``
            already set to another (the caller's choice is not overridden
            silently).
    """
    if precision is None:
        yield
        return
    _check(precision, 'cpu_precision', CPU_PRECISIONS)
    before = _cpu_precision_from_env()
    if before not in (None, precision):
        raise ValueError(f'cpu_precision {precision!r} disagrees with '
                         f'{CPU_PRECISION_ENV}={before}: unset the variable '
                         'or ask for its precision')
    os.environ[CPU_PRECISION_ENV] = precision
    try:
        yield
    finally:
        if before is None:
            del os.environ[CPU_PRECISION_ENV]


def resolve_precision(precision, device_type, dtype='bfloat16'):
    """The precision a run asking for ``precision`` computes in on
    ``device_type``.

    Args:
        precision (str): one of ``PRECISIONS``.
        device_type (str): 'cpu' or 'cuda'.
        dtype (str): the autocast dtype on CUDA: 'bfloat16', or 'float16'
            (GPUs without bf16); a CPU autocasts to bfloat16 only.

    Returns:
        Precision

    Raises:
        ValueError: an unknown precision, device or dtype; float16 on a
            CPU; ``RANDSAC_CPU_PRECISION`` set to an unknown value.
    """
    check_request(precision, dtype)
    _check(device_type, 'device_type', ('cpu', 'cuda'))
    if precision == 'float32':
        return Precision(None, "precision='float32' asked for")
    if device_type == 'cuda':
        return Precision(getattr(torch, dtype), f"precision={precision!r}")
    if dtype != 'bfloat16':
        raise ValueError(f"dtype {dtype!r} autocasts on CUDA only; on a CPU "
                         "use 'bfloat16' (or precision='float32')")
    instructions = cpu_bf16_instructions()
    if precision == 'auto':
        forced = _cpu_precision_from_env()
        if forced is not None:
            precision = forced
            asked = f'{CPU_PRECISION_ENV}={forced}'
        elif instructions:
            return Precision(torch.bfloat16, 'it computes bf16 natively '
                             f'({instructions})')
        else:
            return Precision(None, 'it has no bf16 instructions (AMX, '
                             "AVX512-BF16 or Arm BF16); precision='bfloat16' "
                             f'would emulate bf16 at {EMULATED_COST}')
    else:
        asked = "precision='bfloat16' asked for"
    if precision == 'float32':
        return Precision(None, asked)
    if instructions:
        return Precision(torch.bfloat16,
                         f'{asked}; the CPU computes bf16 natively '
                         f'({instructions})')
    return Precision(torch.bfloat16, f'{asked} on a CPU without bf16 '
                     'instructions', warning='this CPU has no bf16 '
                     'instructions (AMX, AVX512-BF16 or Arm BF16): bf16 is '
                     f'emulated, at {EMULATED_COST}; the float32 default '
                     "(precision='auto') is faster here")
