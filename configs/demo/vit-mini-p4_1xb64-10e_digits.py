# A supervised mini ViT (4 layers, 128 wide, P=4) on the embedded digits.
# Small enough to train on 2 CPU cores in about a minute; the smoke test of
# tools/train.py, tools/test.py and tools/dist_train.sh.
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/archs/vit-mini-digits.py',
    '../_base_/datasets/digits.py',
    '../_base_/schedules/demo_supervised_adamw_10e.py',
]
default_hooks = _base_.schedule_hooks
model = dict(
    type='ImageClassifier',
    backbone=dict(
        type='VisionTransformer',
        # the demo's encoder shape at 4 layers
        arch=dict(_base_.encoder_arch, num_layers=4),
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
