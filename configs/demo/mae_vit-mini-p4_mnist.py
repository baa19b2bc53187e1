# MAE against the demo's RandSAC (randsac_vit-mini-p4_square-16to4_mnist.py),
# the paper's baseline of Table "Low-data pre-training": mmpretrain's own
# MAE, 75% random masking, normalised pixel targets, the same encoder and a
# decoder of the same depth, heads and width. Same digits, augmentation and
# epochs; no segment layout. An initialisation of the small transfer study
# (python -m experiments.transfer_small, docs/transfer_study.md).
_base_ = [
    './_base_/randsac_vit-mini-p4_mnist.py',
    '../_base_/schedules/small_scale_adamw_10e.py',
]
default_hooks = _base_.schedule_hooks
model = dict(type='MAEMatchedToRandSAC', head=dict(norm_pix=True))
train_dataloader = dict(dataset=dict(pipeline=[
    step for step in _base_.train_pipeline
    if step['type'] != 'RandSACSegmentGenerator']))
