# Scales down paper Table "Performance of Architectures", Transformer-skip
# (CIFAR10, ViT-T): blob 11 -> 5, the decoder with the trainable skip layer,
# normalised pixel targets.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=11, hierarchy=(5, ))))
model = dict(neck=dict(skip_connection=True), head=dict(norm_pix=True))
