# CIFAR-10 classification for fine-tuning and linear probing (32 px, the
# standard python batches under data/cifar10/cifar-10-batches-py).
_base_ = ['../normalisation/cifar10.py']
dataset_type = 'CheckedCIFAR10'
data_root = 'data/cifar10'
num_classes = 10
data_preprocessor = dict(
    num_classes=num_classes,
    mean=_base_.cifar10_mean,
    std=_base_.cifar10_std,
    to_rgb=False)
# Fine-tuning augmentation (paper Table "End-to-end fine-tuning setting"):
# RandAug(9, 0.5); mixup and cutmix come from the schedule.
train_pipeline = [
    dict(type='RandomResizedCrop', scale=32, backend='pillow',
         interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandAugment', policies='timm_increasing', num_policies=2,
         total_level=10, magnitude_level=9, magnitude_std=0.5,
         hparams=dict(pad_val=[104, 116, 124], interpolation='bicubic')),
    dict(type='PackInputs'),
]
# Linear probing augmentation (paper Table "Linear probing setting").
linear_train_pipeline = [
    dict(type='RandomResizedCrop', scale=32, backend='pillow',
         interpolation='bicubic'),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PackInputs'),
]
test_pipeline = [dict(type='PackInputs')]
train_dataloader = dict(
    batch_size=128,
    num_workers=8,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    dataset=dict(type=dataset_type, data_root=data_root, split='train',
                 pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=256,
    num_workers=8,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(type=dataset_type, data_root=data_root, split='test',
                 pipeline=test_pipeline, test_mode=True))
val_evaluator = dict(type='Accuracy', topk=(1, ))
test_dataloader = val_dataloader
test_evaluator = val_evaluator
