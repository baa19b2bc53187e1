# CIFAR-100 pretraining data (standard python batches under data/cifar100/
# cifar-100-python). Paper: RandomResizedCrop(0.2, 1.0) and flip; the
# segment layout is sampled per image after the crop. The same steps as
# cifar10_randsac.py, written out: a data set base stands alone, so a
# change to one data set never reaches another unseen.
dataset_type = 'CheckedCIFAR100'
data_root = 'data/cifar100'
data_preprocessor = dict(
    type='HostSamplesDataPreprocessor',
    mean=[129.304, 124.070, 112.434],
    std=[68.170, 65.392, 70.418],
    to_rgb=False,  # CIFAR batches are RGB already
    non_blocking=True)  # host-to-GPU copies from pinned memory, async

# The layout step has the token grid only: each pretraining config states
# its segment layout with randsac_mm.segments.config.with_segments.
train_pipeline = [
    dict(type='PerSampleSeed'),  # see docs/guarantees.md
    dict(type='RandomResizedCrop', scale=32, crop_ratio_range=(0.2, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4),
    dict(type='PackInputs', algorithm_keys=['token_rank'], meta_keys=[]),
]
train_dataloader = dict(
    batch_size=64,
    num_workers=8,
    persistent_workers=True,
    pin_memory=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    collate_fn=dict(type='default_collate'),
    dataset=dict(type=dataset_type, data_root=data_root, split='train',
                 pipeline=train_pipeline))
