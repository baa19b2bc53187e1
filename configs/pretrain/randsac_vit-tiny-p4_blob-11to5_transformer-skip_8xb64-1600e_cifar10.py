# Paper Table "Performance of Architectures" (CIFAR10, Transformer-skip row:
# LIN 89.5, FT 94.4) and the FLOPs table (ViT-T 484.26 M): ViT-T/4, blob
# segments 11 -> 5, 3-layer decoder with trainable skip connections,
# norm_pix targets, 1600 epochs (Appendix "CIFAR10 Experiments").
_base_ = [
    '../_base_/models/randsac_vit-tiny-p4.py',
    '../_base_/datasets/cifar10_randsac.py',
    '../_base_/schedules/cifar_adamw_1600e.py',
]
model = dict(neck=dict(skip_connection=True), head=dict(norm_pix=True))
train_dataloader = dict(dataset=dict(pipeline=[
    dict(type='PerSampleSeed'),  # see README: Guarantees
    dict(type='RandomResizedCrop', scale=32, crop_ratio_range=(0.2, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4,
         segment='blob', num_segments=11, hierarchy=(5, )),
    dict(type='PackInputs', algorithm_keys=['token_rank', 'segment_ids'],
         meta_keys=[]),
]))
