# Paper Table "Segment Coherence", K=7; the same run is Table "Segments"
# blob-random and Table "Hierarchical Segment Prediction" blob 7 (CIFAR10): 7
# Gaussian blobs in a random order.
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=7,
    serialization='random')))
