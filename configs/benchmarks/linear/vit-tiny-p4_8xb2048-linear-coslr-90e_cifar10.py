# Linear probe of a RandSAC vit-tiny-p4 on cifar10, for the CIFAR10 ablations of paper Section 3 (ViT-T/4).
# Paper Table "Linear probing setting": the frozen encoder's averaged
# last-layer tokens (after the final norm), a BatchNorm without affine (the
# MAE protocol the paper follows) and a linear classifier; LARS, base lr 0.1,
# batch 16384 = 8 x 2048, 90 epochs. Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = [
    '../../_base_/models/randsac_vit_linear.py',
    '../../_base_/datasets/cifar10_cls.py',
    '../../_base_/schedules/linear_lars_90e.py',
]
model = dict(
    backbone=dict(
        arch=dict(embed_dims=192, num_layers=12, num_heads=3,
                  feedforward_channels=768),
        img_size=32,
        patch_size=4),
    neck=[dict(type='GlobalAveragePooling'),
          dict(type='ClsBatchNormNeck', input_features=192)],
    head=dict(num_classes=10, in_channels=192))
train_dataloader = dict(
    batch_size=2048, dataset=dict(pipeline=_base_.linear_train_pipeline))
