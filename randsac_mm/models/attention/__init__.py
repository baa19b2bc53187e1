"""Attention kernels: how masked attention is computed (``kernels.py``:
each kernel's mask form and attention, the registry, building one), and
their numerical check (``numerical_check.py``: every registered kernel
against float32 math, and the clearance a kernel variant needs before a
step runs on a device), and a model's kernel on its device
(``model_attention.py``: the one place a model builds one). What a token
may see, the rules and a batch's
masks, is ``randsac_mm.models.utils.segment_batch``. docs/architecture.md,
"Adding an attention kernel".
"""
from .kernels import (
    ATTENTION_KERNELS,
    DEFAULT_SDPA_BACKENDS,
    SDPA_BACKENDS,
    AttentionKernel,
    DenseMaskKernel,
    ExplicitKernel,
    FlexKernel,
    SDPAKernel,
    auto_kernel_name,
    build_attention_kernel,
    explicit_attention,
    register_attention_kernel,
    sdpa_backend_list,
)
from .model_attention import ModelAttention

__all__ = ['ATTENTION_KERNELS', 'AttentionKernel', 'DEFAULT_SDPA_BACKENDS',
           'DenseMaskKernel', 'ExplicitKernel', 'FlexKernel', 'ModelAttention',
           'SDPA_BACKENDS', 'SDPAKernel', 'auto_kernel_name',
           'build_attention_kernel', 'explicit_attention',
           'register_attention_kernel', 'sdpa_backend_list']
