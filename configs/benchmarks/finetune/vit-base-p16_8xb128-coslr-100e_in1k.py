# End-to-end fine-tuning of a RandSAC vit-base-p16 on in1k, for paper Table "Comparison on ImageNet-1K" (ViT-B/16, pretrained at 192 px;
# the position embeddings are interpolated to 224 px on load).
# Paper Table "End-to-end fine-tuning setting": the averaged last-layer
# tokens and a linear classifier, AdamW base lr 5e-4, layer decay 0.65,
# batch 1024 = 8 x 128, 100 epochs, RandAug(9, 0.5), label smoothing 0.1,
# mixup 0.8, cutmix 1.0, drop path 0.1. Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = [
    '../../_base_/models/randsac_vit_finetune.py',
    '../../_base_/datasets/imagenet_cls.py',
    '../../_base_/schedules/finetune_adamw_100e.py',
]
model = dict(
    backbone=dict(arch='base', img_size=224, patch_size=16),
    head=dict(num_classes=1000, in_channels=768))
