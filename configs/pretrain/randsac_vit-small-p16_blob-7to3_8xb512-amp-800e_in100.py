# Paper Table "Hierarchical Segment Prediction", blob 7 -> 3 (ImageNet100): 7
# Gaussian blobs grouped into 3 partitions.
_base_ = ['./_base_/randsac_vit-small-p16_in100_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=7, hierarchy=(3, ),
    serialization='random')))
