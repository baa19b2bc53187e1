# Linear probe of a RandSAC ViT-L/16 on ImageNet-1K (the ViT-L/16 pretraining
# configs, at 192 px; the position embeddings are interpolated to 224 px on
# load): the ViT-B/16 probe with the large encoder and its width. Give the
# pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = ['./vit-base-p16_8xb2048-linear-coslr-90e_in1k.py']
model = dict(
    backbone=dict(arch='large'),
    neck=[_base_.model.neck[0],
          dict(_base_.model.neck[1], input_features=1024)],
    head=dict(in_channels=1024))
