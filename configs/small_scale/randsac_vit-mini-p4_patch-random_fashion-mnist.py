# Scales down paper Table "Serialization", patch-random (CIFAR10, ViT-T; the
# same run is Table "Square size" M=1): every token its own segment, in a
# random order per image.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='patch')))
