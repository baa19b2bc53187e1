# End-to-end fine-tuning of a RandSAC ViT-T/2 on CIFAR10, for paper
# Table "Patch-random tokenization as a function of P" (and, P=1, the
# pixel-raster row of Table "Tokenization"): the ViT-T/4 protocol with
# 2x2 patches. Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = ['./vit-tiny-p4_8xb128-coslr-100e_cifar10.py']
model = dict(backbone=dict(patch_size=2))
