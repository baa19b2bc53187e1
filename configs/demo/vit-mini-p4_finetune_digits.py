# End-to-end fine-tuning of the demo's mini ViT on the embedded digits: the
# paper's recipe shrunk for a CPU (AdamW with layer decay 0.65, label
# smoothing 0.1, drop path 0.1; batch 64, 10 epochs, no mixup on 8x8
# digits). Give the pretraining checkpoint with
#   --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/.../epoch_N.pth
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/archs/vit-mini-digits.py',
    '../_base_/datasets/digits.py',
    '../_base_/schedules/demo_finetune_adamw_10e.py',
]
default_hooks = _base_.schedule_hooks
model = dict(
    type='ImageClassifier',
    backbone=dict(
        type='RandSACViT',
        arch=_base_.encoder_arch,
        img_size=32,
        patch_size=4,
        drop_path_rate=0.1,
        out_type='featmap',
        pos_embed_type='learned',
        init_cfg=dict(type='Pretrained', checkpoint='', prefix='backbone.')),
    neck=dict(type='GlobalAveragePooling'),
    head=dict(
        type='LinearClsHead',
        num_classes=10,
        in_channels=128,
        loss=dict(type='LabelSmoothLoss', label_smooth_val=0.1,
                  mode='original'),
        init_cfg=dict(type='TruncNormal', layer='Linear', std=2e-5)),
)
