# Scales down paper Table "Hierarchical Segment Prediction", square 16 -> 4
# (CIFAR10, ViT-T): 16 squares of 2x2 tokens in 4 squares of squares, random
# at both levels.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=2, hierarchy=(4, ))))
