# RandSAC-Square (K = 9, flat), ViT-B/16 at 192 px on ImageNet-1K: paper
# Table "Comparison on ImageNet-1K", row "RandSAC-Square (K=9)", and its
# transfer in Table "Semantic Segmentation on ADE20K". 12x12 tokens in 4x4
# squares = 9 segments: the name gives what the config sets (square_size
# M = 4), the paper's row the count it makes (K = 9); otherwise as
# configs/randsac_vit-b_in1k.py.
_base_ = ['../randsac_vit-b_in1k.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=4, hierarchy=(),
    serialization='random')))
