# Paper Table "Hierarchical Segment Prediction", square 16, and Table
# "Segments", square-random (ImageNet100): 16 squares of 4x4 tokens in a
# random order. At 256 px (see its base): a 14x14 grid has no 16 equal
# squares.
_base_ = ['./_base_/randsac_vit-small-p16-256px_in100_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=4,
    serialization='random')))
