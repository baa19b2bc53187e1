# Paper Table "Performance of Architectures", CIFAR10 Transformer row: the
# masked transformer, every decoder layer reading the last encoder layer.
# Blob segments 11 -> 5, as every row of that table.
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_1600e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=11, hierarchy=(5, ))))
