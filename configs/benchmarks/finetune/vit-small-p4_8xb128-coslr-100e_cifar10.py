# End-to-end fine-tuning of a RandSAC vit-small-p4 on cifar10, for paper Table "Low-data pre-training on CIFAR 10 and 100" (ViT-S/4).
# Paper Table "End-to-end fine-tuning setting": the averaged last-layer
# tokens and a linear classifier, AdamW base lr 5e-4, layer decay 0.65,
# batch 1024 = 8 x 128, 100 epochs, RandAug(9, 0.5), label smoothing 0.1,
# mixup 0.8, cutmix 1.0, drop path 0.1. Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = [
    '../../_base_/models/randsac_vit_finetune.py',
    '../../_base_/datasets/cifar10_cls.py',
    '../../_base_/schedules/finetune_adamw_100e.py',
]
model = dict(
    backbone=dict(
        arch=dict(embed_dims=384, num_layers=12, num_heads=6,
                  feedforward_channels=1536),
        img_size=32,
        patch_size=4),
    head=dict(num_classes=10, in_channels=384))
