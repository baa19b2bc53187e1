"""Masked attention: the mask rules, and the kernels that apply them.

``rules.py`` says what a token may see; each kernel (``sdpa.py``,
``explicit.py``, ``flex.py``) is one registered :class:`AttentionKernel`
that builds masks from the rules in its own form and attends with them;
``numerical_check.py`` compares every registered kernel with float32 math
and clears a kernel for a device (docs/architecture.md, "Adding an
attention kernel").
"""
# Importing the kernels registers their names, in the order 'auto' and
# the check go through them.
from .explicit import ExplicitKernel, explicit_attention
from .flex import FlexKernel
from .kernel import (
                     ATTENTION_KERNELS,
                     AttentionKernel,
                     DenseMaskKernel,
                     auto_kernel_name,
                     build_attention_kernel,
                     register_attention_kernel,
)
from .multihead import (
                        attention_dropout,
                        attention_output,
                        multihead_attention,
)
from .rules import cross_rule, decoder_rule, encoder_rule
from .sdpa import (
                   DEFAULT_SDPA_BACKENDS,
                   SDPA_BACKENDS,
                   SDPAKernel,
                   sdpa_backend_list,
)

__all__ = ['ATTENTION_KERNELS', 'AttentionKernel', 'DEFAULT_SDPA_BACKENDS',
           'DenseMaskKernel', 'ExplicitKernel', 'FlexKernel',
           'SDPA_BACKENDS', 'SDPAKernel', 'attention_dropout',
           'attention_output', 'auto_kernel_name', 'build_attention_kernel',
           'cross_rule', 'decoder_rule', 'encoder_rule',
           'explicit_attention', 'multihead_attention',
           'register_attention_kernel', 'sdpa_backend_list']
