# Scales down paper Table "Performance of Architectures", Two-stream
# (CIFAR10, ViT-T): blob 11 -> 5, XLNet-style two-stream attention with
# shared weights and no decoder, normalised pixel targets. As in the paper,
# the shared stack has the encoder's plus the decoder's layers (6 + 2); the
# evaluated encoder is its content stream through all 8 layers.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=11, hierarchy=(5, ))))
model = dict(
    backbone=dict(type='RandSACTwoStreamViT', arch=dict(num_layers=8)),
    neck=None,
    head=dict(norm_pix=True))
