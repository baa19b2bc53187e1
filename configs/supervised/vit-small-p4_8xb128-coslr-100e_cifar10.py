# Paper Table "Low-data pre-training on CIFAR 10 and 100", Supervised on
# CIFAR10: 91.3. ViT-S/4 (12 x 384, 6 heads, 32 px) trained from scratch
# with the fine-tuning recipe and no layer decay, batch 1024 = 8 x 128,
# 100 epochs (our choice; the paper gives none). Its validation accuracy is
# the row's number.
_base_ = [
    '../_base_/models/vit_supervised.py',
    '../_base_/datasets/cifar10_cls.py',
    '../_base_/schedules/supervised_adamw_100e.py',
]
model = dict(
    backbone=dict(
        arch=dict(embed_dims=384, num_layers=12, num_heads=6,
                  feedforward_channels=1536),
        img_size=32,
        patch_size=4),
    head=dict(num_classes=10, in_channels=384))
