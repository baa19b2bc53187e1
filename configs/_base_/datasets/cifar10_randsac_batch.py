# CIFAR-10 pretraining data on the batch path (docs/data.md, "Small images
# on the batch path"): the 50,000 training images of the standard python
# batches under data/cifar10/cifar-10-batches-py, held in memory as one
# array. Each batch's crops, flips and segment layouts are drawn at once in
# a loader worker, keyed on (seed, epoch, sample) like the per-sample
# pipeline's (docs/guarantees.md); the crop runs on the training device in
# the data preprocessor. The paper's augmentation: RandomResizedCrop(0.2,
# 1.0) and a flip.
_base_ = ['../normalisation/cifar10.py']
data_root = 'data/cifar10'
data_preprocessor = dict(
    type='BatchCropDataPreprocessor',
    mean=_base_.cifar10_mean,
    std=_base_.cifar10_std,
    to_rgb=False,  # CIFAR batches are RGB already
    non_blocking=True)
# The token grid only: each pretraining config states its segment layout
# with randsac_mm.segments.config.with_segments(_base_.layout, ...).
layout = dict(input_size=32, patch_size=4)
train_dataloader = dict(
    batch_size=512,
    # Each worker draws whole batches (its rate:
    # docs/benchmarks/small_images_loader_cpu.json).
    num_workers=4,
    persistent_workers=True,
    pin_memory=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    collate_fn=dict(type='default_collate'),
    dataset=dict(
        type='InMemoryBatchImages',
        dataset=dict(type='CheckedCIFAR10', data_root=data_root,
                     split='train'),
        crop=dict(scale=32, crop_ratio_range=(0.2, 1.0), backend='pillow',
                  interpolation='bicubic'),
        flip_prob=0.5,
        layout=layout))
