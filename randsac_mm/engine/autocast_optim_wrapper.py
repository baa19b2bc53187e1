"""An optimizer wrapper that runs the forward pass under autocast where the
device computes it fast: bf16 on GPUs and on CPUs with bf16 instructions,
float32 on other CPUs (``randsac_mm.precision``).

mmengine's ``AmpOptimWrapper`` asserts a CUDA (or NPU/MLU) device and
always scales the loss. bf16 keeps fp32's exponent range, so it needs no
loss scaling: this wrapper only enters ``torch.autocast``. The pretraining
configs and the digit-scene UperNet and Mask R-CNN configs use it with
``precision='auto'``; ``tools/train.py --amp`` sets 'bfloat16' (every
device) and ``--fp32`` sets 'float32'.
"""
from contextlib import contextmanager

import torch
from mmengine.optim import OptimWrapper
from mmengine.registry import OPTIM_WRAPPERS

from ..precision import check_request, resolve_precision

__all__ = ['AutocastOptimWrapper', 'enable_tf32', 'tf32_settings']

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
    mmpretrain, mmseg and mmdet scopes alike. The precision is decided at
    the first step, for the model's device, and logged once.

    Args:
        dtype (str): the autocast dtype on CUDA: 'bfloat16' (default) or
            'float16' (GPUs without bf16; then prefer mmengine's
            AmpOptimWrapper, which scales the loss). A CPU autocasts to
            bfloat16 only.
        precision (str): 'auto' (default: autocast on CUDA and on a CPU
            with bf16 instructions, float32 on other CPUs), 'bfloat16'
            (every device) or 'float32' (none); see
            :func:`randsac_mm.precision.resolve_precision`.
        device_type (str | None): 'cpu' or 'cuda'. None follows the model's
            parameters.
        tf32 (bool): on CUDA, let what stays float32 (the optimizer-side
            matmuls, the float32 ops autocast keeps) use TF32 tensor cores.
            Set once, when the wrapper is built, through torch's
            ``fp32_precision`` settings (CUDA matmuls and cuDNN
            convolutions): the older ``allow_tf32`` flags are deprecated,
            and mixing the two raises under ``torch.compile``.
        **kwargs: Passed to :class:`mmengine.optim.OptimWrapper`.
    """

    def __init__(self, *args, dtype='bfloat16', precision='auto',
                 device_type=None, tf32=True, **kwargs):
        check_request(precision, dtype)
        if device_type not in (None, ) + DEVICE_TYPES:
            raise ValueError("device_type must be None, 'cpu' or 'cuda', got "
                             f'{device_type!r}')
        super().__init__(*args, **kwargs)
        self.autocast_dtype = dtype
        self.precision = precision
        self.device_type = device_type
        self.decided = None  # (device type, Precision) at the first step
        self.tf32 = tf32
        if tf32:
            enable_tf32()

    def _device_type(self, model):
        if self.device_type is not None:
            return self.device_type
        first = next(model.parameters(), None)
        return first.device.type if first is not None else 'cpu'

    def decide(self, model):
        """The model's device type and its :class:`~randsac_mm.precision.
        Precision`, decided (and logged) once."""
        if self.decided is None:
            device_type = self._device_type(model)
            decided = resolve_precision(self.precision, device_type,
                                        self.autocast_dtype)
            decided.log(device_type)
            self.decided = device_type, decided
        return self.decided

    @contextmanager
    def optim_context(self, model):
        device_type, decided = self.decide(model)
        with super().optim_context(model), decided.autocast(device_type):
            yield
