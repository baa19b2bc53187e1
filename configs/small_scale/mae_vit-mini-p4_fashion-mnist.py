# Scales down paper Table "Low-data pre-training on CIFAR 10 and 100", MAE
# row (CIFAR10, ViT-S), against that table's RandSAC-Blob 11 -> 5:
# mmpretrain's own MAE, 75% random masking, normalised pixel targets, the
# same encoder as the study's RandSAC and a decoder matched to RandSAC's
# (the paper: "the same depth, attention head, and dimension as ours").
# Same data, augmentation and schedule; no segment layout.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
model = dict(type='MAEMatchedToRandSAC',
             head=dict(norm_pix=True))  # MAE's target; the study's are raw
# MAE has no segment layout: the study's pipeline without its step.
train_dataloader = dict(dataset=dict(pipeline=[
    step for step in _base_.train_pipeline
    if step['type'] != 'RandSACSegmentGenerator']))
