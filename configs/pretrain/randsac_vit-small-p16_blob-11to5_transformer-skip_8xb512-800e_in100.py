# Paper Table "Performance of Architectures" (ImageNet100, Transformer-skip
# row: LIN 70.7, FT 87.3) and the FLOPs table (ViT-S 6.77 G): ViT-S/16 at
# 224 px, blob segments 11 -> 5, 4-layer decoder with 12 heads and trainable
# skip connections, norm_pix, batch 4096 = 8 x 512, 800 epochs.
_base_ = [
    '../_base_/models/randsac_vit-small-p16.py',
    '../_base_/datasets/imagenet100_randsac.py',
    '../_base_/schedules/imagenet100_adamw_800e.py',
]
model = dict(neck=dict(skip_connection=True))
train_dataloader = dict(dataset=dict(pipeline=[
    dict(type='PerSampleSeed'),  # see README: Guarantees
    dict(type='LoadImageFromFile'),
    dict(type='RandomResizedCrop', scale=224, crop_ratio_range=(0.2, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandSACSegmentGenerator', input_size=224, patch_size=16,
         segment='blob', num_segments=11, hierarchy=(5, )),
    dict(type='PackInputs', algorithm_keys=['token_rank', 'segment_ids'],
         meta_keys=['img_path']),
]))
