# Linear probe of the demo's mini ViT on the embedded digits: frozen encoder,
# averaged final-normed tokens, BatchNorm without affine, linear classifier
# (the paper's protocol, shrunk: SGD, batch 128, 15 epochs). Give the
# pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/.../epoch_N.pth
# or set model.backbone.init_cfg=None to probe a randomly initialised
# encoder of the same shape.
_base_ = ['../_base_/datasets/digits.py', '../_base_/default_runtime.py']

model = dict(
    type='ImageClassifier',
    backbone=dict(
        type='RandSACViT',
        arch=dict(embed_dims=128, num_layers=6, num_heads=4,
                  feedforward_channels=512),
        img_size=32,
        patch_size=4,
        frozen_stages=6,
        out_type='featmap',
        init_cfg=dict(type='Pretrained', checkpoint='', prefix='backbone.')),
    neck=[
        dict(type='GlobalAveragePooling'),
        dict(type='ClsBatchNormNeck', input_features=128),
    ],
    head=dict(
        type='LinearClsHead',
        num_classes=10,
        in_channels=128,
        loss=dict(type='CrossEntropyLoss'),
        init_cfg=dict(type='TruncNormal', layer='Linear', std=0.01)),
)
train_dataloader = dict(batch_size=128)
max_epochs = 15
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='SGD', lr=0.1, momentum=0.9, weight_decay=0.0))
param_scheduler = [
    dict(type='CosineAnnealingLR', by_epoch=True, begin=0, end=max_epochs,
         eta_min=0.0, convert_to_iter_based=True),
]
train_cfg = dict(by_epoch=True, max_epochs=max_epochs, val_interval=max_epochs)
val_cfg = dict()
test_cfg = dict()
default_hooks = dict(
    logger=dict(type='LoggerHook', interval=10),
    checkpoint=dict(type='CheckpointHook', interval=max_epochs,
                    max_keep_ckpts=1))
