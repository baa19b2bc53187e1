# Scales down the MAE row of paper Table "Low-data pre-training" (CIFAR10
# ViT-S: LIN 87.3 / FT 95.9, against RandSAC-Blob 11 -> 5 at 93.9 / 96.9):
# mmpretrain's own MAE, 75% random masking, normalised pixel targets, the
# same encoder as the study's RandSAC and a decoder matched to RandSAC's
# (the paper: "the same depth, attention head, and dimension as ours").
# Same data, augmentation and schedule; no segment layout.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
model = dict(type='MAEMatchedToRandSAC',
             head=dict(norm_pix=True))  # MAE's target; the study's are raw
train_dataloader = dict(dataset=dict(pipeline=[
    step for step in _base_.train_pipeline
    if step['type'] != 'RandSACSegmentGenerator']))
