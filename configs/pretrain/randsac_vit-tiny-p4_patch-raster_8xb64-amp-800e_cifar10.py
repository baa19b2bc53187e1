# Paper Table "Tokenization", patch-raster, and Table "Serialization",
# patch-raster (CIFAR10): every 4x4-pixel token its own segment, predicted in
# raster order (iGPT's order, on patches).
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='patch', serialization='raster')))
