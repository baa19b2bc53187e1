"""Which modules FSDP shards as units: one per transformer layer."""
from mmengine.registry import FUNCTIONS
from mmpretrain.models.backbones.vision_transformer import (
    TransformerEncoderLayer,
)

__all__ = ['is_fsdp_unit', 'transformer_layer_wrap_policy']


def is_fsdp_unit(module):
    """Whether FSDP shards ``module`` as a unit: a layer whose class sets
    ``fsdp_unit = True`` (RandSAC's encoder and decoder layers, any
    ``SegmentDecoder``'s), or mmpretrain's ``TransformerEncoderLayer``
    (MAE's encoder and decoder)."""
    return getattr(type(module), 'fsdp_unit', False) or \
        isinstance(module, TransformerEncoderLayer)


@FUNCTIONS.register_module()
def transformer_layer_wrap_policy(module, recurse, nonwrapped_numel):
    """FSDP ``auto_wrap_policy``: every transformer layer
    (:func:`is_fsdp_unit`) is a unit, gathered for its own forward and
    backward; the rest (embeddings, norms, the skip weights, the head) is
    the root's. Registered in mmengine's root FUNCTIONS, where
    ``MMFullyShardedDataParallel`` looks up a policy named in a config:
    ``strategy=dict(type='FSDPStrategy', model_wrapper=dict(
    auto_wrap_policy='transformer_layer_wrap_policy'))``.
    """
    return True if recurse else is_fsdp_unit(module)
