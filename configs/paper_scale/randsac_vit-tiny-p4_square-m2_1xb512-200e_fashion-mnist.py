# Paper Table "Square size" M=2 (CIFAR10), at the paper's scale on
# Fashion-MNIST: 16 squares of 2x2 tokens in a random order (also Table
# "Segments" square-random and Table "Hierarchical Segment Prediction"
# square 16).
_base_ = ['./_base_/randsac_vit-tiny-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(layout=with_segments(
    _base_.layout, segment='square', square_size=2,
    serialization='random')))
