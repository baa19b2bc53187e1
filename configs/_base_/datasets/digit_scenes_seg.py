# Digit scenes (mmseg scope), the small segmentation set of the transfer
# study (python -m experiments.digit_scenes writes it): 64 px grey scenes of
# 2 to 4 MNIST digits, 11 classes with the background one of them. ADE20K's
# recipe at this scale: random rescaling (ratio 0.75 to 1.5; digits are 16
# to 28 px high) and a 64 px crop with cat_max_ratio 0.75, photometric
# distortion; no flip (a mirrored digit is another shape); the whole scene
# at test time.
dataset_type = 'DigitScenesDataset'
data_root = 'data/digit_scenes'
crop_size = (64, 64)
train_pipeline = [
    dict(type='LoadImageFromFile'),
    dict(type='LoadAnnotations'),
    dict(type='RandomResize', scale=crop_size, ratio_range=(0.75, 1.5),
         keep_ratio=True),
    dict(type='RandomCrop', crop_size=crop_size, cat_max_ratio=0.75),
    dict(type='PhotoMetricDistortion'),
    dict(type='PackSegInputs'),
]
test_pipeline = [
    dict(type='LoadImageFromFile'),
    dict(type='LoadAnnotations'),
    dict(type='PackSegInputs'),
]
# One loader worker: the model takes the two cores of a CPU run.
train_dataloader = dict(
    batch_size=8,
    num_workers=1,
    persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_prefix=dict(img_path='images/training',
                         seg_map_path='annotations/training'),
        pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=8,
    num_workers=1,
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
