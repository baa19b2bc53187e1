# CIFAR-10 pretraining data (standard python batches under data/cifar10/
# cifar-10-batches-py). Paper: RandomResizedCrop(0.2, 1.0) and flip; the
# segment layout is sampled per image after the crop.
_base_ = ['../normalisation/cifar10.py']
dataset_type = 'CheckedCIFAR10'
data_root = 'data/cifar10'
data_preprocessor = dict(
    type='HostSamplesDataPreprocessor',
    mean=_base_.cifar10_mean,
    std=_base_.cifar10_std,
    to_rgb=False,  # CIFAR batches are RGB already
    non_blocking=True)  # host-to-GPU copies from pinned memory, async

# The layout step has the token grid only: each pretraining config states
# its segment layout (segment, square_size, num_segments, hierarchy,
# serialization, coherent) with randsac_mm.segments.config.with_segments.
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
