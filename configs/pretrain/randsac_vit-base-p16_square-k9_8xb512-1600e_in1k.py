# RandSAC-Square (K = 9, flat), ViT-B/16 at 192 px on ImageNet-1K: paper
# Table "Comparison on ImageNet-1K" (linear 72.3, fine-tune 83.7) and
# Table "Semantic Segmentation on ADE20K" (mIoU 48.3). 12x12 tokens in 4x4
# squares = 9 segments; otherwise as configs/randsac_vit-b_in1k.py.
_base_ = ['../randsac_vit-b_in1k.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(type='PerSampleSeed'),  # see README: Guarantees
    dict(type='LoadImageFromFile'),
    dict(type='RandomResizedCrop', scale=192, crop_ratio_range=(0.2, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandSACSegmentGenerator', input_size=192, patch_size=16,
         segment='square', square_size=4, hierarchy=(),
         serialization='random'),
    dict(type='PackInputs', algorithm_keys=['token_rank', 'segment_ids'],
         meta_keys=['img_path']),
]))
