# Paper Table "Serialization", patch-random (CIFAR10); the same run is Table
# "Square size" M=1, Table "Segments" patch-random and the 4x4 column of
# Table "Patch-random tokenization as a function of P": every token its own
# segment, in a random order per image.
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='patch', serialization='random')))
