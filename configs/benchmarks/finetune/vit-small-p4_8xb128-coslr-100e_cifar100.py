# End-to-end fine-tuning of a RandSAC ViT-S/4 on CIFAR100, for paper Table
# "Low-data pre-training on CIFAR 10 and 100".
# The protocol of paper Table "End-to-end fine-tuning setting": the model
# of _base_/models/randsac_vit_finetune.py, the schedule of
# _base_/schedules/finetune_adamw_100e.py. Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit_finetune.py',
    '../../_base_/datasets/cifar100_cls.py',
    '../../_base_/schedules/finetune_adamw_100e.py',
]
default_hooks = _base_.schedule_hooks
model = dict(
    backbone=dict(arch='deit-small', img_size=32, patch_size=4),
    head=dict(num_classes=100, in_channels=384))
