# Paper Table "Hierarchical Segment Prediction", blob 16: LIN 80.97, FT 90.57.
# CIFAR10, ViT-T/4 (12 x 192, 3 heads), 3-layer masked-transformer decoder,
# raw pixel targets, 800 epochs, batch 512 = 8 x 64 (Appendix "CIFAR10
# Experiments"). Evaluate with configs/benchmarks/{linear,finetune}/
# vit-tiny-p4_*_cifar10.py.
_base_ = [
    '../_base_/models/randsac_vit-tiny-p4.py',
    '../_base_/datasets/cifar10_randsac.py',
    '../_base_/schedules/cifar_adamw_800e.py',
]
train_dataloader = dict(dataset=dict(pipeline=[
    dict(type='PerSampleSeed'),  # see README: Guarantees
    dict(type='RandomResizedCrop', scale=32, crop_ratio_range=(0.2, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4,
         segment='blob', num_segments=16, serialization='random'),
    dict(type='PackInputs', algorithm_keys=['token_rank', 'segment_ids'],
         meta_keys=[]),
]))
