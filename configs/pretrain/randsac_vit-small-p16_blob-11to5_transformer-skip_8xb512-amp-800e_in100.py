# Paper Table "Performance of Architectures", ImageNet100 Transformer-skip
# row, and the ViT-S row of Table "FLOPs of Three Candidate Architectures":
# the decoder with trainable skip connections, each decoder layer reading a
# learned mix of the encoder layers. Blob segments 11 -> 5, as every row of
# that table.
_base_ = ['./_base_/randsac_vit-small-p16_in100_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

model = dict(neck=dict(skip_connection=True))
train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=11, hierarchy=(5, ))))
