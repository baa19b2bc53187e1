# Fashion-MNIST pretraining data: the standard IDX files (Debian's
# dataset-fashion-mnist installs them in /usr/share/datasets/fashion-mnist),
# 28 px padded to 32 px RGB, so the paper's CIFAR steps apply as they are
# (8x8 tokens at P=4: crop, flip, layout; written out here, not inherited
# from cifar10_randsac.py, so that a CIFAR change cannot reach the
# small-scale study). The first 6000 training images, in the main process:
# a run takes minutes on 2 CPU cores.
_base_ = ['../normalisation/fashion-mnist.py']
dataset_type = 'CheckedFashionMNIST'
data_root = '/usr/share/datasets/fashion-mnist'
data_preprocessor = dict(
    type='HostSamplesDataPreprocessor',
    mean=_base_.fashion_mnist_mean,
    std=_base_.fashion_mnist_std,
    to_rgb=False,
    non_blocking=True)
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
    num_workers=0,
    persistent_workers=False,
    pin_memory=False,  # CPU runs
    sampler=dict(type='DefaultSampler', shuffle=True),
    collate_fn=dict(type='default_collate'),
    dataset=dict(type=dataset_type, data_root=data_root, split='train',
                 indices=6000, pipeline=train_pipeline))
