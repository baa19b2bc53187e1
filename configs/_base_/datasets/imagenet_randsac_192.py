# ImageNet-1K pretraining data at 192 px (paper: "We resize the images to
# 192x192 during pretraining"): data/imagenet/train/<wnid>/*.JPEG or
# data/imagenet/meta/train.txt.
dataset_type = 'CheckedImageNet'
data_root = 'data/imagenet'
data_preprocessor = dict(
    type='HostSamplesDataPreprocessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    to_rgb=True,
    non_blocking=True)  # host-to-GPU copies from pinned memory, async

# The layout step has the token grid only: each pretraining config states
# its segment layout (segment, square_size, num_segments, hierarchy,
# serialization, coherent) with randsac_mm.segments.config.with_segments.
train_pipeline = [
    dict(type='PerSampleSeed'),  # see docs/guarantees.md
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
    # A worker on an H100 node's Xeon cores prepares 216 images/s; a GPU at
    # 40% MFU trains about 2,900: 14 workers, 16 CPUs per GPU
    # (docs/performance.md, "Data loading").
    num_workers=14,
    persistent_workers=True,
    pin_memory=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    collate_fn=dict(type='default_collate'),
    dataset=dict(type=dataset_type, data_root=data_root, split='train',
                 pipeline=train_pipeline))
