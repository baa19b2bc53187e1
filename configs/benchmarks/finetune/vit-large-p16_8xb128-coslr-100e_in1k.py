# End-to-end fine-tuning of a RandSAC ViT-L/16 on ImageNet-1K (the ViT-L/16
# pretraining configs, at 192 px; the position embeddings are interpolated to
# 224 px on load): the ViT-B/16 fine-tuning with the large encoder and its
# width. Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = ['./vit-base-p16_8xb128-coslr-100e_in1k.py']
model = dict(backbone=dict(arch='large'), head=dict(in_channels=1024))
