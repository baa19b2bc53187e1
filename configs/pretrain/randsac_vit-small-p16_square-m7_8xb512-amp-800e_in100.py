# Paper Table "Hierarchical Segment Prediction", square 4 (ImageNet100): 4
# squares of 7x7 tokens in a random order.
_base_ = ['./_base_/randsac_vit-small-p16_in100_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=7,
    serialization='random')))
