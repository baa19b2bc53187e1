# scikit-learn's handwritten digits (embedded, no download), upscaled to
# 32 px (8x8 tokens at P=4), for RandSAC pretraining: a milder crop than
# the paper's (0.5, 1.0) and no flip (digits are not mirror-symmetric).
data_preprocessor = dict(
    type='HostSamplesDataPreprocessor',
    # Pixel statistics of the upscaled training digits (0..255).
    mean=[78.9, 78.9, 78.9],
    std=[89.0, 89.0, 89.0],
    to_rgb=False)
# The layout step has the token grid only: each pretraining config states
# its segment layout with randsac_mm.segments.config.with_segments.
train_pipeline = [
    dict(type='PerSampleSeed'),  # see docs/guarantees.md
    dict(type='RandomResizedCrop', scale=32, crop_ratio_range=(0.5, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4),
    dict(type='PackInputs', algorithm_keys=['token_rank'], meta_keys=[]),
]
train_dataloader = dict(
    batch_size=64,
    num_workers=0,
    sampler=dict(type='DefaultSampler', shuffle=True),
    collate_fn=dict(type='default_collate'),
    dataset=dict(type='DigitsDataset', split='train', pipeline=train_pipeline))
