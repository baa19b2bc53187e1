# End-to-end fine-tuning of an MAE ViT-S/4 (configs/pretrain/mae_vit-small-p4_*_cifar100.py),
# paper Table "Low-data pre-training", MAE row: the RandSAC rows' protocol
# (averaged patch tokens). MAEViT's class token is the one checkpoint key
# left unused; its position-embedding entry is dropped on load. Give the
# pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = ['./vit-small-p4_8xb128-coslr-100e_cifar100.py']
model = dict(backbone=dict(unused_checkpoint_keys=('cls_token', )))
