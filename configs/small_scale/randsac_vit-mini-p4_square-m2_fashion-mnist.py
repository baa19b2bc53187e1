# Scales down paper Table "Square size", M=2 (CIFAR10, ViT-T; the same run is
# Table "Segments" square-random and Table "Hierarchical Segment Prediction"
# square 16): 16 squares of 2x2 tokens in a random order. The study's base
# layout, stated here too.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=2)))
