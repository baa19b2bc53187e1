# Digit scenes (mmdet scope), the small instance set of the transfer study
# (python -m experiments.digit_scenes writes it): 64 px grey scenes of 2 to
# 4 MNIST digits, a box and a mask per digit in COCO's JSON, the ten digits
# as classes. Li et al.'s large-scale jitter at this scale: rescaling by
# 0.75 to 1.5 (digits are 16 to 28 px high), a 64 px crop, padded with the
# scenes' black background; no flip (a mirrored digit is another shape).
dataset_type = 'CheckedCocoDataset'  # CocoDataset + layout check
data_root = 'data/digit_scenes/'
image_size = (64, 64)
metainfo = dict(classes=('0', '1', '2', '3', '4', '5', '6', '7', '8', '9'))
train_pipeline = [
    dict(type='LoadImageFromFile'),
    dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
    dict(type='RandomResize', scale=image_size, ratio_range=(0.75, 1.5),
         keep_ratio=True),
    dict(type='RandomCrop', crop_type='absolute_range', crop_size=image_size,
         recompute_bbox=True, allow_negative_crop=True),
    dict(type='FilterAnnotations', min_gt_bbox_wh=(1e-2, 1e-2)),
    dict(type='Pad', size=image_size, pad_val=dict(img=(0, 0, 0))),
    dict(type='PackDetInputs'),
]
test_pipeline = [
    dict(type='LoadImageFromFile'),
    # At the scenes' own size: sets the scale factor the heads map back by.
    dict(type='Resize', scale=image_size, keep_ratio=True),
    dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
    dict(type='PackDetInputs',
         meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape',
                    'scale_factor')),
]
# One loader worker: the model takes the two cores of a CPU run.
train_dataloader = dict(
    batch_size=8,
    num_workers=1,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    batch_sampler=dict(type='AspectRatioBatchSampler'),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        metainfo=metainfo,
        ann_file='annotations/instances_training.json',
        data_prefix=dict(img='images/training/'),
        filter_cfg=dict(filter_empty_gt=True),
        pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=8,
    num_workers=1,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        metainfo=metainfo,
        ann_file='annotations/instances_validation.json',
        data_prefix=dict(img='images/validation/'),
        test_mode=True,
        pipeline=test_pipeline))
test_dataloader = val_dataloader
val_evaluator = dict(
    type='CocoMetric',
    ann_file=data_root + 'annotations/instances_validation.json',
    metric=['bbox', 'segm'],
    format_only=False)
test_evaluator = val_evaluator
