# End-to-end fine-tuning of the demo's mini ViT on the embedded digits: the
# paper's recipe shrunk for a CPU (AdamW with layer decay 0.65, label
# smoothing 0.1, drop path 0.1; batch 64, 10 epochs, no mixup on 8x8
# digits). Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/.../epoch_N.pth
_base_ = ['../_base_/datasets/digits.py', '../_base_/default_runtime.py']

model = dict(
    type='ImageClassifier',
    backbone=dict(
        type='RandSACViT',
        arch=dict(embed_dims=128, num_layers=6, num_heads=4,
                  feedforward_channels=512),
        img_size=32,
        patch_size=4,
        drop_path_rate=0.1,
        out_type='featmap',
        pos_embed_type='learned',
        init_cfg=dict(type='Pretrained', checkpoint='', prefix='backbone.')),
    neck=dict(type='GlobalAveragePooling'),
    head=dict(
        type='LinearClsHead',
        num_classes=10,
        in_channels=128,
        loss=dict(type='LabelSmoothLoss', label_smooth_val=0.1,
                  mode='original'),
        init_cfg=dict(type='TruncNormal', layer='Linear', std=2e-5)),
)
max_epochs = 10
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-3, betas=(0.9, 0.999),
                   weight_decay=0.05),
    constructor='LearningRateDecayOptimWrapperConstructor',
    paramwise_cfg=dict(layer_decay_rate=0.65,
                       custom_keys={'.ln': dict(decay_mult=0.0),
                                    '.bias': dict(decay_mult=0.0),
                                    'pos_embed': dict(decay_mult=0.0)}))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-3, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end=max_epochs,
         eta_min=1e-6, convert_to_iter_based=True),
]
train_cfg = dict(by_epoch=True, max_epochs=max_epochs, val_interval=max_epochs)
val_cfg = dict()
test_cfg = dict()
default_hooks = dict(
    logger=dict(type='LoggerHook', interval=10),
    checkpoint=dict(type='CheckpointHook', interval=max_epochs,
                    max_keep_ckpts=1))
