# UperNet on ADE20K from the ImageNet-1K RandSAC ViT-B (paper Appendix
# "Semantic segmentation on ADE20K": BEiT's setting). BEiT's recipe for
# self-supervised checkpoints, microsoft/unilm beit/semantic_segmentation/
# configs/beit/upernet/upernet_beit_base_12_512_slide_160k_ade20k_pt.py with
# its _base_ files: the schedule (lr 7e-4, fp16) in _base_/schedules/
# upernet_adamw_160k.py; 512x512 crops of images resized to (2048, 512) x
# [0.5, 2.0], cat_max_ratio 0.75, flip, photometric distortion; encoder
# tapped at blocks (3, 5, 7, 11), rescaled to strides 4, 8, 16, 32 (the
# stride-4 branch with SyncBN); drop path 0.1; UPerHead 768 channels, FCN
# auxiliary head (256 channels, loss weight 0.4); SyncBN; slide test, crop
# 512, stride 341. Where our ViT differs from BEiT's: BEiT fine-tunes with a
# relative position bias per block and layer scale (init 0.1); ours keeps the
# pretraining's absolute position embedding (interpolated to 32x32 tokens,
# then learned) and has no layer scale. Targets: paper Table "Semantic
# Segmentation on ADE20K", rows RandSAC-Square (K=16->4), from
# configs/randsac_vit-b_in1k.py, and RandSAC-Square (K=9).
#   tools/dist_train.sh configs/segmentation/upernet_randsac-vit-b_8xb2-160k_ade20k-512x512.py 8 \
#       --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/randsac_vit-b_in1k/epoch_1600.pth
# The checkpoint may be the raw pretraining one (position embeddings are
# interpolated on load) or the output of tools/model_converters/
# randsac2downstream.py --to mmseg.
_base_ = ['../_base_/schedules/upernet_adamw_160k.py']
default_scope = 'mmseg'
custom_imports = dict(imports=['randsac_mm.downstream'],
                      allow_failed_imports=False)

crop_size = (512, 512)
norm_cfg = dict(type='SyncBN', requires_grad=True)
data_preprocessor = dict(
    type='SegDataPreProcessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    pad_val=0,
    seg_pad_val=255,
    size=crop_size)
model = dict(
    type='EncoderDecoder',
    data_preprocessor=data_preprocessor,
    backbone=dict(
        type='RandSACViTPyramid',
        arch='base',
        img_size=512,
        patch_size=16,
        drop_path_rate=0.1,
        out_indices=(3, 5, 7, 11),
        scales=(4, 2, 1, 0.5),
        norm_cfg=norm_cfg,
        pos_embed_type='learned',
        init_cfg=dict(type='Pretrained', checkpoint='', prefix='backbone.')),
    decode_head=dict(
        type='UPerHead',
        in_channels=[768, 768, 768, 768],
        in_index=[0, 1, 2, 3],
        pool_scales=(1, 2, 3, 6),
        channels=768,
        dropout_ratio=0.1,
        num_classes=150,
        norm_cfg=norm_cfg,
        align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False,
                         loss_weight=1.0)),
    auxiliary_head=dict(
        type='FCNHead',
        in_channels=768,
        in_index=2,
        channels=256,
        num_convs=1,
        concat_input=False,
        dropout_ratio=0.1,
        num_classes=150,
        norm_cfg=norm_cfg,
        align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False,
                         loss_weight=0.4)),
    train_cfg=dict(),
    test_cfg=dict(mode='slide', crop_size=crop_size, stride=(341, 341)))

# ADE20K: data/ade/ADEChallengeData2016/{images,annotations}/{training,
# validation}/*.{jpg,png}; label 0 (other) is ignored.
dataset_type = 'CheckedADE20KDataset'  # ADE20KDataset + layout check
data_root = 'data/ade/ADEChallengeData2016'
train_pipeline = [
    dict(type='LoadImageFromFile'),
    dict(type='LoadAnnotations', reduce_zero_label=True),
    dict(type='RandomResize', scale=(2048, 512), ratio_range=(0.5, 2.0),
         keep_ratio=True),
    dict(type='RandomCrop', crop_size=crop_size, cat_max_ratio=0.75),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PhotoMetricDistortion'),
    dict(type='PackSegInputs'),
]
test_pipeline = [
    dict(type='LoadImageFromFile'),
    dict(type='Resize', scale=(2048, 512), keep_ratio=True),
    dict(type='LoadAnnotations', reduce_zero_label=True),
    dict(type='PackSegInputs'),
]
train_dataloader = dict(
    batch_size=2,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_prefix=dict(img_path='images/training',
                         seg_map_path='annotations/training'),
        pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=1,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_prefix=dict(img_path='images/validation',
                         seg_map_path='annotations/validation'),
        pipeline=test_pipeline))
test_dataloader = val_dataloader
val_evaluator = dict(type='IoUMetric', iou_metrics=['mIoU'])
test_evaluator = val_evaluator

default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', by_epoch=False, interval=16000,
                    max_keep_ckpts=3,
                    backend_args=dict(backend='atomic_local')),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='SegVisualizationHook'))
custom_hooks = [dict(type='NonFiniteLossHook'),
                dict(type='RandomStateHook')]  # drop path through a resume
env_cfg = dict(cudnn_benchmark=True,
               mp_cfg=dict(mp_start_method='fork', opencv_num_threads=0),
               dist_cfg=dict(backend='nccl'))
vis_backends = [dict(type='LocalVisBackend')]
visualizer = dict(type='SegLocalVisualizer', vis_backends=vis_backends,
                  name='visualizer')
log_processor = dict(by_epoch=False)
log_level = 'INFO'
load_from = None
resume = False
randomness = dict(seed=0)
