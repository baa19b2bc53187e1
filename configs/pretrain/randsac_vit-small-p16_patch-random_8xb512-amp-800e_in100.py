# Paper Table "Serialization", patch-random, and Table "Segments",
# patch-random (ImageNet100): every token its own segment, in a random order
# per image.
_base_ = ['./_base_/randsac_vit-small-p16_in100_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='patch', serialization='random')))
