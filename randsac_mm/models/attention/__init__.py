"""Masked attention: the mask rules and the kernels that apply them
(``kernels.py``), and their numerical check (``numerical_check.py``:
every registered kernel against float32 math, and the clearance a kernel
variant needs before a step runs on a device). docs/architecture.md,
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
    MaskedAttention,
    SDPAKernel,
    auto_kernel_name,
    build_attention_kernel,
    cross_rule,
    decoder_rule,
    encoder_rule,
    explicit_attention,
    register_attention_kernel,
    sdpa_backend_list,
)

__all__ = ['ATTENTION_KERNELS', 'AttentionKernel', 'DEFAULT_SDPA_BACKENDS',
           'DenseMaskKernel', 'ExplicitKernel', 'FlexKernel',
           'MaskedAttention', 'SDPA_BACKENDS', 'SDPAKernel',
           'auto_kernel_name', 'build_attention_kernel', 'cross_rule',
           'decoder_rule', 'encoder_rule', 'explicit_attention',
           'register_attention_kernel', 'sdpa_backend_list']
