# Paper Table "Low-data pre-training on CIFAR 10 and 100", RandSAC-Square
# (16 -> 4) on CIFAR10: LIN 92.1, FT 96.7.
# CIFAR10, ViT-S/4 (12 x 384, 6 heads), 6-layer decoder with trainable
# skip connections, norm_pix, 1600 epochs, batch 512 = 8 x 64 (Appendix
# "Low-data Pre-training Setting"). Evaluate with configs/benchmarks/
# {linear,finetune}/vit-small-p4_*_cifar10.py.
_base_ = [
    '../_base_/models/randsac_vit-small-p4.py',
    '../_base_/datasets/cifar10_randsac.py',
    '../_base_/schedules/cifar_adamw_1600e.py',
]
train_dataloader = dict(dataset=dict(pipeline=[
    dict(type='PerSampleSeed'),  # see README: Guarantees
    dict(type='RandomResizedCrop', scale=32, crop_ratio_range=(0.2, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4,
         segment='square', square_size=2, hierarchy=(4,), serialization='random'),
    dict(type='PackInputs', algorithm_keys=['token_rank', 'segment_ids'],
         meta_keys=[]),
]))
