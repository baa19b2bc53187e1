# Linear probe of a RandSAC vit-base-p16 on in1k, for paper Table "Comparison on ImageNet-1K" (ViT-B/16, pretrained at 192 px;
# the position embeddings are interpolated to 224 px on load).
# Paper Table "Linear probing setting": the frozen encoder's averaged
# last-layer tokens (after the final norm), a BatchNorm without affine (the
# MAE protocol the paper follows) and a linear classifier; LARS, base lr 0.1,
# batch 16384 = 8 x 2048, 90 epochs. Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = [
    '../../_base_/models/randsac_vit_linear.py',
    '../../_base_/datasets/imagenet_cls.py',
    '../../_base_/schedules/linear_lars_90e.py',
]
model = dict(
    backbone=dict(arch='base', img_size=224, patch_size=16),
    neck=[dict(type='GlobalAveragePooling'),
          dict(type='ClsBatchNormNeck', input_features=768)],
    head=dict(num_classes=1000, in_channels=768))
train_dataloader = dict(
    batch_size=2048, dataset=dict(pipeline=_base_.linear_train_pipeline))
