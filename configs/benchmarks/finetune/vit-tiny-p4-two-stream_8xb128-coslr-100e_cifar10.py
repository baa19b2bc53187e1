# End-to-end fine-tuning of a two-stream RandSAC ViT-T/4 on CIFAR10, paper
# Table "Performance of Architectures" (two-stream row): the content stream
# through all 15 layers (12 + the 3 that replace the decoder), layer decay
# over 15 layers; the query_token is left unused. Give the pretraining
# checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/epoch_<N>.pth
_base_ = [
    './vit-tiny-p4_8xb128-coslr-100e_cifar10.py',
    '../../_base_/models/archs/vit-tiny-two-stream.py',
]
model = dict(backbone=dict(
    arch=dict(_base_.encoder_arch, _delete_=True),  # replaces the arch name
    unused_checkpoint_keys=('query_token', )))
