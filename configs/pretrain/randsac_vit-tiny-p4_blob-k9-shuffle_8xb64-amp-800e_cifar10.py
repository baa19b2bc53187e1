# Paper Table "Segment Coherence", Shuffle K=9: the blob sizes of K=9, with
# tokens reassigned to segments at random (no spatial coherence).
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=9, coherent=False,
    serialization='random')))
