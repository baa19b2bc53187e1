# ImageNet-100 pretraining data: ImageNet restricted to the 100 classes of
# randsac_mm/datasets/meta/imagenet100.txt, folder layout under
# data/imagenet100/train/<wnid>/ (a full ImageNet root works too).
dataset_type = 'ImageNet100'
data_root = 'data/imagenet100'
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
    dict(type='RandomResizedCrop', scale=224, crop_ratio_range=(0.2, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandSACSegmentGenerator', input_size=224, patch_size=16),
    dict(type='PackInputs', algorithm_keys=['token_rank'],
         meta_keys=['img_path']),
]
train_dataloader = dict(
    batch_size=512,
    # ViT-S/16 wants more images/s than a GPU node's cores decode at 224 px;
    # measure yours (docs/performance.md, "Data loading").
    num_workers=10,
    persistent_workers=True,
    pin_memory=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    collate_fn=dict(type='default_collate'),
    dataset=dict(type=dataset_type, data_root=data_root, split='train',
                 pipeline=train_pipeline))
