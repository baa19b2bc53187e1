# Paper Table "Square size" M=4 and Table "Hierarchical Segment Prediction"
# square 4 (CIFAR10): 4 squares of 4x4 tokens in a random order.
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=4,
    serialization='random')))
