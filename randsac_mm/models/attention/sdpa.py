"""'sdpa': ``F.scaled_dot_product_attention`` with boolean masks, under an
explicit list of its backends, never torch's own pick (on an H100 that is
cuDNN, whose masked backward can give NaN gradients: docs/performance.md,
"Masked attention").

The default list, ``('efficient', 'flash')``, runs memory-efficient
attention on a GPU (flash takes no mask there) and the flash kernel on a
CPU (the only fused CPU kernel). A list naming 'cudnn' runs only on a
device where cuDNN has passed the low-logsumexp check
(``numerical_check.clear_kernel``).
"""
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from .kernel import DenseMaskKernel, register_attention_kernel

__all__ = ['DEFAULT_SDPA_BACKENDS', 'SDPA_BACKENDS', 'SDPAKernel',
           'sdpa_backend_list']

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

    def check_variants(self):
        """One row per backend of ``SDPA_BACKENDS``, each alone."""
        return [(f'sdpa:{name}', SDPAKernel((name, )))
                for name in SDPA_BACKENDS]

    def variants_to_clear(self, device):
        if torch.device(device).type == 'cuda' and \
                UNCLEARED in self.backends:
            return (f'sdpa:{UNCLEARED}', )
        return ()

    def refusal(self, label):
        return f'sdpa_backends names {label.split(":")[1]!r}'

    def remedy(self, label):
        return (f'remove {label.split(":")[1]!r} from the model\'s '
                f'sdpa_backends (default {DEFAULT_SDPA_BACKENDS})')
