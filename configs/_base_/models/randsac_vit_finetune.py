# End-to-end fine-tuning of a RandSAC encoder, paper Table "End-to-end
# fine-tuning setting": the averaged last-layer tokens and a linear
# classifier; drop path 0.1, label smoothing 0.1, mixup 0.8, cutmix 1.0.
# A config on top gives the encoder's shape (arch, img_size, patch_size)
# and the head's (num_classes, in_channels); the pretraining checkpoint is
# given at run time:
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
model = dict(
    type='ImageClassifier',
    backbone=dict(
        type='RandSACViT',
        drop_path_rate=0.1,
        out_type='featmap',
        # The pretrained (sin-cos) position embeddings are loaded and then
        # fine-tuned with the rest of the encoder.
        pos_embed_type='learned',
        init_cfg=dict(type='Pretrained', checkpoint='', prefix='backbone.')),
    neck=dict(type='GlobalAveragePooling'),
    head=dict(
        type='LinearClsHead',
        loss=dict(type='LabelSmoothLoss', label_smooth_val=0.1,
                  mode='original'),
        init_cfg=dict(type='TruncNormal', layer='Linear', std=2e-5)),
    train_cfg=dict(augments=[
        dict(type='Mixup', alpha=0.8),
        dict(type='CutMix', alpha=1.0),
    ]),
)
