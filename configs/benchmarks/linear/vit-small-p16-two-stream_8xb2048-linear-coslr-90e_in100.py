# Linear probe of a two-stream RandSAC ViT-S/16 on ImageNet100, paper Table
# "Performance of Architectures" (two-stream row): the content stream
# through all 16 layers (12 + the 4 that replace the decoder); the query
# stream's query_token is the one checkpoint key left unused. Give the
# pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = [
    './vit-small-p16_8xb2048-linear-coslr-90e_in100.py',
    '../../_base_/models/archs/vit-small-two-stream.py',
]
model = dict(backbone=dict(
    arch=dict(_base_.encoder_arch, _delete_=True),  # replaces the arch name
    unused_checkpoint_keys=('query_token', )))
