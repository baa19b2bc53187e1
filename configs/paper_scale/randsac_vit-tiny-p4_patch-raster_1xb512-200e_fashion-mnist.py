# Paper Table "Serialization", patch-raster (CIFAR10), at the paper's scale
# on Fashion-MNIST: every token its own segment, in raster order.
_base_ = ['./_base_/randsac_vit-tiny-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(layout=with_segments(
    _base_.layout, segment='patch', serialization='raster')))
