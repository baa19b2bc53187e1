# Linear probe of the demo's mini ViT on the embedded digits: frozen encoder,
# averaged final-normed tokens, BatchNorm without affine, linear classifier
# (the paper's protocol, shrunk: SGD, batch 128, 15 epochs). Give the
# pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/.../epoch_N.pth
# or set model.backbone.init_cfg=None to probe a randomly initialised
# encoder of the same shape.
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/randsac_vit_linear.py',
    '../_base_/models/archs/vit-mini-digits.py',
    '../_base_/datasets/digits.py',
    '../_base_/schedules/demo_linear_sgd_15e.py',
]
default_hooks = _base_.schedule_hooks
model = dict(
    backbone=dict(
        arch=_base_.encoder_arch,
        img_size=32,
        patch_size=4,
        frozen_stages=6),
    neck=[dict(type='GlobalAveragePooling'),
          dict(type='ClsBatchNormNeck', input_features=128)],
    head=dict(num_classes=10, in_channels=128))
train_dataloader = dict(batch_size=128)
