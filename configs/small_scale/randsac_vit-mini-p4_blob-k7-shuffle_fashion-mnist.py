# Scales down paper Table "Segment Coherence", Shuffle K=7 (CIFAR10, ViT-T):
# the blob sizes of K=7, tokens shuffled between segments (no spatial
# coherence).
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=7, coherent=False)))
