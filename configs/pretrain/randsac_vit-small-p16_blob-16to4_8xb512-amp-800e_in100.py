# Paper Table "Hierarchical Segment Prediction", blob 16 -> 4 (ImageNet100):
# 16 Gaussian blobs grouped into 4 partitions.
_base_ = ['./_base_/randsac_vit-small-p16_in100_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=16, hierarchy=(4, ),
    serialization='random')))
