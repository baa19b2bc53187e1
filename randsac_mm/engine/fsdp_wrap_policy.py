"""Which modules FSDP shards as units: one per transformer layer."""
from mmengine.registry import FUNCTIONS
from mmpretrain.models.backbones.vision_transformer import (
    TransformerEncoderLayer,
)

__all__ = ['transformer_layer_wrap_policy']


@FUNCTIONS.register_module()
def transformer_layer_wrap_policy(module, recurse, nonwrapped_numel):
    """FSDP ``auto_wrap_policy``: every encoder layer (RandSAC's
    ``SegmentCausalLayer``, mmpretrain's ``TransformerEncoderLayer`` of MAE)
    and RandSAC decoder layer is a unit, gathered for its own forward and
    backward; the rest (embeddings, norms, the skip weights, the head) is
    the root's. Registered in mmengine's root FUNCTIONS, where
    ``MMFullyShardedDataParallel`` looks up a policy named in a config:
    ``strategy=dict(type='FSDPStrategy', model_wrapper=dict(
    auto_wrap_policy='transformer_layer_wrap_policy'))``.
    """
    from ..models.backbones.randsac_vit import SegmentCausalLayer
    from ..models.necks.randsac_decoder import RandSACDecoderLayer
    if recurse:
        return True
    return isinstance(module, (SegmentCausalLayer, TransformerEncoderLayer,
                               RandSACDecoderLayer))
