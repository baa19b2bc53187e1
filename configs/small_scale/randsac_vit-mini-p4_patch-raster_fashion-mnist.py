# Scales down paper Table "Serialization", patch-raster (CIFAR10, ViT-T; the
# same run is Table "Tokenization" patch-raster): every token its own
# segment, predicted in raster order (iGPT's order, on patches).
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='patch', serialization='raster')))
