# Linear probe of an MAE ViT-S/4
# (configs/pretrain/mae_vit-small-p4_*_cifar10.py), paper Table "Low-data
# pre-training on CIFAR 10 and 100", MAE row, CIFAR10 column. The RandSAC
# rows' protocol (averaged final-normed patch tokens) on MAE's encoder as it
# was pretrained: with its class token, which attends in every layer but is
# not pooled. Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = ['./vit-small-p4_8xb2048-linear-coslr-90e_cifar10.py']
model = dict(backbone=dict(with_cls_token=True))
