"""An optimizer wrapper that runs the forward pass under autocast (bf16).

mmengine's ``AmpOptimWrapper`` asserts a CUDA (or NPU/MLU) device and
always scales the loss. bf16 keeps fp32's exponent range, so it needs no
loss scaling: this wrapper only enters ``torch.autocast``. The pretraining
configs use it with ``device_types=('cuda', )``: bf16 on GPUs, float32 on
a CPU (where the tests and the demo run, and bf16 is slower); ``tools/
train.py --amp`` turns it on for every device.
"""
from contextlib import contextmanager

import torch
from mmengine.optim import OptimWrapper
from mmengine.registry import OPTIM_WRAPPERS

__all__ = ['AutocastOptimWrapper', 'enable_tf32', 'tf32_settings']

VALID_DTYPES = ('bfloat16', 'float16')
DEVICE_TYPES = ('cpu', 'cuda')


def tf32_settings():
    """torch's ``fp32_precision`` settings that TF32 goes through: CUDA
    matmuls and cuDNN convolutions (flags of the CUDA backends: no effect
    on a CPU's arithmetic)."""
    return (torch.backends.cuda.matmul, torch.backends.cudnn.conv)


def enable_tf32():
    """TF32 tensor cores for float32 CUDA matmuls and convolutions."""
    for setting in tf32_settings():
        setting.fp32_precision = 'tf32'


@OPTIM_WRAPPERS.register_module()
class AutocastOptimWrapper(OptimWrapper):
    """OptimWrapper whose ``optim_context`` enables ``torch.autocast``.

    Registered in mmengine's root registry, so it is found from the
    mmpretrain, mmseg and mmdet scopes alike.

    Args:
        dtype (str): 'bfloat16' (default) or 'float16' (CUDA only, and then
            prefer mmengine's AmpOptimWrapper, which scales the loss).
        device_type (str | None): 'cpu' or 'cuda'. None follows the model's
            parameters.
        device_types (tuple[str] | None): the device types autocast is on
            for; on others the step runs in float32. None: every device.
        tf32 (bool): on CUDA, let what stays float32 (the optimizer-side
            matmuls, the float32 ops autocast keeps) use TF32 tensor cores.
            Set once, when the wrapper is built, through torch's
            ``fp32_precision`` settings (CUDA matmuls and cuDNN
            convolutions): the older ``allow_tf32`` flags are deprecated,
            and mixing the two raises under ``torch.compile``.
        **kwargs: Passed to :class:`mmengine.optim.OptimWrapper`.
    """

    def __init__(self, *args, dtype='bfloat16', device_type=None,
                 device_types=None, tf32=True, **kwargs):
        if dtype not in VALID_DTYPES:
            raise ValueError(
                f'dtype must be one of {VALID_DTYPES}, got {dtype!r}')
        if device_type not in (None, ) + DEVICE_TYPES:
            raise ValueError("device_type must be None, 'cpu' or 'cuda', got "
                             f'{device_type!r}')
        if device_types is not None and (
                isinstance(device_types, str)
                or not set(device_types) <= set(DEVICE_TYPES)):
            raise ValueError(f'device_types must be None or a tuple of '
                             f'{DEVICE_TYPES}, got {device_types!r}')
        super().__init__(*args, **kwargs)
        self.cast_dtype = getattr(torch, dtype)
        self.device_type = device_type
        self.device_types = None if device_types is None \
            else tuple(device_types)
        self.tf32 = tf32
        if tf32:
            enable_tf32()

    def _device_type(self, model):
        if self.device_type is not None:
            return self.device_type
        first = next(model.parameters(), None)
        return first.device.type if first is not None else 'cpu'

    @contextmanager
    def optim_context(self, model):
        device_type = self._device_type(model)
        enabled = self.device_types is None or \
            device_type in self.device_types
        with super().optim_context(model), torch.autocast(
                device_type=device_type, dtype=self.cast_dtype,
                enabled=enabled):
            yield
