# Scales down paper Table "Segment Coherence", K=7 (CIFAR10, ViT-T; the same
# run is Table "Segments" blob-random and Table "Hierarchical Segment
# Prediction" blob 7): 7 Gaussian blobs in a random order.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=7)))
