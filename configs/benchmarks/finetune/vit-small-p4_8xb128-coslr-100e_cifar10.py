# End-to-end fine-tuning of a RandSAC vit-small-p4 on cifar10, for paper Table "Low-data pre-training on CIFAR 10 and 100" (ViT-S/4).
# Paper Table "End-to-end fine-tuning setting": the averaged last-layer
# tokens and a linear classifier, AdamW base lr 5e-4, layer decay 0.65,
# batch 1024 = 8 x 128, 100 epochs, RandAug(9, 0.5), label smoothing 0.1,
# mixup 0.8, cutmix 1.0, drop path 0.1. Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = [
    '../../_base_/datasets/cifar10_cls.py',
    '../../_base_/schedules/finetune_adamw_100e.py',
]
model = dict(
    type='ImageClassifier',
    backbone=dict(
        type='RandSACViT',
        arch=dict(embed_dims=384, num_layers=12, num_heads=6,
                  feedforward_channels=1536),
        img_size=32,
        patch_size=4,
        drop_path_rate=0.1,
        out_type='featmap',
        # The pretrained (sin-cos) position embeddings are loaded and then
        # fine-tuned with the rest of the encoder.
        pos_embed_type='learned',
        init_cfg=dict(type='Pretrained', checkpoint='', prefix='backbone.')),
    neck=dict(type='GlobalAveragePooling'),
    head=dict(
        type='LinearClsHead',
        num_classes=10,
        in_channels=384,
        loss=dict(type='LabelSmoothLoss', label_smooth_val=0.1,
                  mode='original'),
        init_cfg=dict(type='TruncNormal', layer='Linear', std=2e-5)),
    train_cfg=dict(augments=[
        dict(type='Mixup', alpha=0.8),
        dict(type='CutMix', alpha=1.0),
    ]),
)
