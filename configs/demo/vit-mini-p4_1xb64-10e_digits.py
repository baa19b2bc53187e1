# A supervised mini ViT (4 layers, 128 wide, P=4) on the embedded digits.
# Small enough to train on 2 CPU cores in about a minute; the smoke test of
# tools/train.py, tools/test.py and tools/dist_train.sh.
_base_ = ['../_base_/datasets/digits.py', '../_base_/default_runtime.py']

model = dict(
    type='ImageClassifier',
    backbone=dict(
        type='VisionTransformer',
        arch=dict(embed_dims=128, num_layers=4, num_heads=4,
                  feedforward_channels=512),
        img_size=32,
        patch_size=4,
        out_type='avg_featmap',
        with_cls_token=False,
        final_norm=True,
    ),
    neck=None,
    head=dict(
        type='LinearClsHead',
        num_classes=10,
        in_channels=128,
        loss=dict(type='LabelSmoothLoss', label_smooth_val=0.1),
    ),
)

optim_wrapper = dict(
    optimizer=dict(type='AdamW', lr=1e-3, weight_decay=0.05,
                   betas=(0.9, 0.999)))
param_scheduler = [
    dict(type='LinearLR', start_factor=0.01, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end=10,
         eta_min=1e-5),
]
train_cfg = dict(by_epoch=True, max_epochs=10, val_interval=5)
val_cfg = dict()
test_cfg = dict()
auto_scale_lr = dict(base_batch_size=64)
default_hooks = dict(logger=dict(interval=10))
