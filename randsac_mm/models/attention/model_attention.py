"""A model's attention setting and the kernel it gives on the model's
device: the one place a model builds its attention kernel
(``build_attention_kernel``) and clears it for the device it runs on
(``numerical_check.clear_kernel``: cuDNN's low-logsumexp case), for the
pretraining model (``RandSAC``) and the downstream pyramid backbone's
windowed blocks alike. A tool that wants another kernel asks for it by
setting, never by changing a model's attributes."""
import torch

from .kernels import DEFAULT_SDPA_BACKENDS, build_attention_kernel
from .numerical_check import clear_kernel

__all__ = ['ModelAttention']


class ModelAttention:
    """The kernel of one attention setting, per device.

    Args:
        setting (str | dict): 'auto' (by device: each kernel's
            ``auto_devices``), a name of ``ATTENTION_KERNELS``, or
            ``dict(type=name, **options)``.
        sdpa_backends (Sequence[str]): the 'sdpa' kernel's backends, most
            preferred first, wherever the setting runs 'sdpa' ('auto'
            included); its own options come first.

    Raises:
        ValueError: a bad backend list or setting, at once rather than at
            the first step.
    """

    def __init__(self, setting='auto', sdpa_backends=DEFAULT_SDPA_BACKENDS):
        self.setting = setting
        self.defaults = {'sdpa': {'backends': tuple(sdpa_backends)}}
        build_attention_kernel('sdpa', defaults=self.defaults)
        if setting != 'auto':
            build_attention_kernel(setting, defaults=self.defaults)
        self._kernels = {}  # device -> its kernel, cleared

    def on(self, device):
        """The kernel of the setting on ``device`` (torch.device or str),
        built and cleared the first time it is asked for there.

        Raises:
            RuntimeError: a variant of the kernel failed its check there
                (``clear_kernel``: what to do instead).
        """
        device = torch.device(device)
        if device not in self._kernels:
            kernel = build_attention_kernel(self.setting, device.type,
                                            self.defaults)
            clear_kernel(kernel, device)
            self._kernels[device] = kernel
        return self._kernels[device]
