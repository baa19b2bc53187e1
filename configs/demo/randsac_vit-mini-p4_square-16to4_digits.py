# RandSAC pretraining of a mini ViT/4 (6 layers x 128) on the embedded digits
# (32 px, 8x8 tokens): square segments M=2, 16 -> 4 hierarchy, random
# serialization, a 2-layer decoder with trainable skip connections. The
# first step of `make demo`; a few minutes on 2 CPU cores. Raw pixel targets
# (norm_pix=False) keep the reconstruction pictures readable.
_base_ = ['../_base_/default_runtime.py']

model = dict(
    type='RandSAC',
    backbone=dict(
        type='RandSACViT',
        arch=dict(embed_dims=128, num_layers=6, num_heads=4,
                  feedforward_channels=512),
        img_size=32,
        patch_size=4),
    neck=dict(
        type='RandSACDecoder',
        num_patches=(8, 8),
        encoder_dims=128,
        encoder_layers=6,
        embed_dims=128,
        num_layers=2,
        num_heads=4,
        skip_connection=True),
    head=dict(type='RandSACPretrainHead', in_channels=128, patch_size=4,
              norm_pix=False),
)
data_preprocessor = dict(
    type='SelfSupDataPreprocessor',
    mean=[78.9, 78.9, 78.9],
    std=[89.0, 89.0, 89.0],
    to_rgb=False)
train_pipeline = [
    dict(type='PerSampleSeed'),  # see README: Guarantees
    dict(type='RandomResizedCrop', scale=32, crop_ratio_range=(0.5, 1.0),
         backend='pillow', interpolation='bicubic'),
    dict(type='RandSACSegmentGenerator', input_size=32, patch_size=4,
         segment='square', square_size=2, hierarchy=(4, )),
    dict(type='PackInputs', algorithm_keys=['token_rank', 'segment_ids'],
         meta_keys=[]),
]
train_dataloader = dict(
    batch_size=64,
    num_workers=0,
    sampler=dict(type='DefaultSampler', shuffle=True),
    collate_fn=dict(type='default_collate'),
    dataset=dict(type='DigitsDataset', split='train', pipeline=train_pipeline))

max_epochs = 40
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=1.5e-3, betas=(0.9, 0.95),
                   weight_decay=0.05),
    paramwise_cfg=dict(norm_decay_mult=0.0, bias_decay_mult=0.0,
                       custom_keys={'skip_weights': dict(decay_mult=0.0)}))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-3, by_epoch=True, begin=0, end=2,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=2, end=max_epochs,
         eta_min=1e-5, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=max_epochs)
default_hooks = dict(
    logger=dict(type='LoggerHook', interval=10),
    checkpoint=dict(type='CheckpointHook', interval=max_epochs,
                    max_keep_ckpts=1))
auto_scale_lr = dict(base_batch_size=64)
