# Paper Table "Hierarchical Segment Prediction", square 16 -> 4 (CIFAR10): 16
# squares of 2x2 tokens grouped into 4 squares of squares, in a random order
# at both levels.
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=2, hierarchy=(4, ),
    serialization='random')))
