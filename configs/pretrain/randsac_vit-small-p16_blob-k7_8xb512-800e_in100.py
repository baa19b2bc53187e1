# Paper Table "Hierarchical Segment Prediction" (ImageNet100), blob 7: LIN 63.36, FT 84.36
# Table "Segments" blob-random: LIN 65.00, FT 85.16.
# ImageNet100, ViT-S/16 at 224 px (14x14 tokens), 4-layer masked-transformer
# decoder with 12 heads, norm_pix, 800 epochs, batch 4096 = 8 x 512 (Appendix
# "ImageNet100 Experiments"). Evaluate with configs/benchmarks/{linear,
# finetune}/vit-small-p16_*_in100.py.
_base_ = [
    '../_base_/models/randsac_vit-small-p16.py',
    '../_base_/datasets/imagenet100_randsac.py',
    '../_base_/schedules/imagenet100_adamw_800e.py',
]
train_dataloader = dict(dataset=dict(pipeline=[
    dict(type='PerSampleSeed'),  # see README: Guarantees
    dict(type='LoadImageFromFile'),
    dict(type='RandomResizedCrop', scale=224, crop_ratio_range=(0.2, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandSACSegmentGenerator', input_size=224, patch_size=16,
         segment='blob', num_segments=7, serialization='random'),
    dict(type='PackInputs', algorithm_keys=['token_rank', 'segment_ids'],
         meta_keys=['img_path']),
]))
