"""An optimizer wrapper that runs the forward pass under bf16 autocast.

mmengine's ``AmpOptimWrapper`` asserts a CUDA (or NPU/MLU) device and
always scales the loss, so ``tools/train.py --amp`` uses this wrapper for
bf16: on CPUs, and on CUDA with ``--amp-dtype bfloat16``. bf16 keeps fp32's
exponent range, so no loss scaling is needed.
"""
from contextlib import contextmanager

import torch
from mmengine.optim import OptimWrapper
from mmengine.registry import OPTIM_WRAPPERS

__all__ = ['AutocastOptimWrapper']

VALID_DTYPES = ('bfloat16', 'float16')


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
        **kwargs: Passed to :class:`mmengine.optim.OptimWrapper`.
    """

    def __init__(self, *args, dtype='bfloat16', device_type=None, **kwargs):
        if dtype not in VALID_DTYPES:
            raise ValueError(
                f'dtype must be one of {VALID_DTYPES}, got {dtype!r}')
        if device_type not in (None, 'cpu', 'cuda'):
            raise ValueError("device_type must be None, 'cpu' or 'cuda', got "
                             f'{device_type!r}')
        super().__init__(*args, **kwargs)
        self.cast_dtype = getattr(torch, dtype)
        self.device_type = device_type

    @contextmanager
    def optim_context(self, model):
        device_type = self.device_type
        if device_type is None:
            first = next(model.parameters(), None)
            device_type = first.device.type if first is not None else 'cpu'
        with super().optim_context(model), torch.autocast(
                device_type=device_type, dtype=self.cast_dtype):
            yield
