# Paper Table "Square size" M=2; the same run is Table "Segments"
# square-random and Table "Hierarchical Segment Prediction" square 16
# (CIFAR10): 16 squares of 2x2 tokens in a random order.
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=2,
    serialization='random')))
