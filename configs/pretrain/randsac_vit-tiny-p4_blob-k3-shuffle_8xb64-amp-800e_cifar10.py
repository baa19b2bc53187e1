# Paper Table "Segment Coherence", Shuffle K=3: the blob sizes of K=3, with
# tokens reassigned to segments at random (no spatial coherence).
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=3, coherent=False,
    serialization='random')))
