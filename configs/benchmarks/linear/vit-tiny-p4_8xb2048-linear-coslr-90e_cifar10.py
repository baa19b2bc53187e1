# Linear probe of a RandSAC ViT-T/4 on CIFAR10, for the CIFAR10 ablations of
# paper Section 3.
# The protocol of paper Table "Linear probing setting": the model of
# _base_/models/randsac_vit_linear.py, the schedule of
# _base_/schedules/linear_lars_90e.py. Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit_linear.py',
    '../../_base_/datasets/cifar10_cls.py',
    '../../_base_/schedules/linear_lars_90e.py',
]
default_hooks = _base_.schedule_hooks
model = dict(
    backbone=dict(arch='deit-tiny', img_size=32, patch_size=4),
    neck=[dict(type='GlobalAveragePooling'),
          dict(type='ClsBatchNormNeck', input_features=192)],
    head=dict(num_classes=10, in_channels=192))
train_dataloader = dict(
    batch_size=2048, dataset=dict(pipeline=_base_.linear_train_pipeline))
