# A supervised mini ViT (4 layers, 128 wide, P=4) on the embedded digits.
# Small enough to train on 2 CPU cores in about a minute; the smoke test of
# tools/train.py, tools/test.py and tools/dist_train.sh.
_base_ = [
    '../_base_/datasets/digits.py',
    '../_base_/schedules/demo_supervised_adamw_10e.py',
]
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
