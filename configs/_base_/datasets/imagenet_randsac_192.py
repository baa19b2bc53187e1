# ImageNet-1K pretraining data at 192 px (paper: "We resize the images to
# 192x192 during pretraining"): data/imagenet/train/<wnid>/*.JPEG or
# data/imagenet/meta/train.txt.
dataset_type = 'CheckedImageNet'
data_root = 'data/imagenet'
data_preprocessor = dict(
    type='SelfSupDataPreprocessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    to_rgb=True)

# The layout step has the token grid only: each pretraining config states
# its segment layout (segment, square_size, num_segments, hierarchy,
# serialization, coherent) with a comprehension over this pipeline.
train_pipeline = [
    dict(type='PerSampleSeed'),  # see README: Guarantees
    dict(type='LoadImageFromFile'),
    dict(type='RandomResizedCrop', scale=192, crop_ratio_range=(0.2, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandSACSegmentGenerator', input_size=192, patch_size=16),
    dict(type='PackInputs', algorithm_keys=['token_rank'],
         meta_keys=['img_path']),
]
train_dataloader = dict(
    batch_size=512,
    num_workers=10,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    collate_fn=dict(type='default_collate'),
    dataset=dict(type=dataset_type, data_root=data_root, split='train',
                 pipeline=train_pipeline))
