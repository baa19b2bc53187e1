# Linear probing of a frozen RandSAC encoder, paper Table "Linear probing
# setting": the averaged last-layer tokens (after the final norm), a
# BatchNorm without affine (the MAE protocol the paper follows) and a
# linear classifier. A config on top gives the encoder's shape (arch,
# img_size, patch_size), the neck (global average pooling, then
# ClsBatchNormNeck of the encoder's width) and the head's shape
# (num_classes, in_channels); the pretraining checkpoint is given at run
# time:
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
model = dict(
    type='ImageClassifier',
    backbone=dict(
        type='RandSACViT',
        frozen_stages='all',
        out_type='featmap',
        init_cfg=dict(type='Pretrained', checkpoint='', prefix='backbone.')),
    head=dict(
        type='LinearClsHead',
        loss=dict(type='CrossEntropyLoss'),
        init_cfg=dict(type='TruncNormal', layer='Linear', std=0.01)),
)
