# Paper Table "Hierarchical Segment Prediction", blob 3 (ImageNet100): 3
# Gaussian blobs in a random order.
_base_ = ['./_base_/randsac_vit-small-p16_in100_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='blob', num_segments=3,
    serialization='random')))
