# Paper Table "Performance of Architectures", CIFAR10 Two-stream row, at the
# paper's scale on Fashion-MNIST: XLNet-style two-stream attention with
# shared weights and no decoder, in a stack of 12 + 3 layers (the depth of
# encoder plus decoder of the other rows). Blob segments 11 -> 5, as every
# row of that table.
_base_ = [
    './_base_/randsac_vit-tiny-p4_norm-pix_fashion-mnist.py',
    '../_base_/models/archs/vit-tiny-two-stream.py',
]
from randsac_mm.segments.config import with_segments  # noqa: E402

model = dict(
    backbone=dict(type='RandSACTwoStreamViT',
                  # replaces the base's arch name
                  arch=dict(_base_.encoder_arch, _delete_=True)),
    neck=None)
train_dataloader = dict(dataset=dict(layout=with_segments(
    _base_.layout, segment='blob', num_segments=11, hierarchy=(5, ))))
