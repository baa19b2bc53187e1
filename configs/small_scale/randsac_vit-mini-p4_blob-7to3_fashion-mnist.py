# Scales down paper Table "Hierarchical Segment Prediction", blob 7 -> 3
# (CIFAR10, ViT-T): 7 blobs grouped into 3 partitions.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=7, hierarchy=(3, ))))
