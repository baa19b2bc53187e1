# Paper Table "Low-data pre-training on CIFAR 10 and 100", RandSAC-Square (16
# -> 4 squares of 2x2 tokens), CIFAR100 column.
_base_ = ['./_base_/randsac_vit-small-p4_cifar100_1600e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=2, hierarchy=(4, ),
    serialization='random')))
