# scikit-learn's handwritten digits (embedded, no download), upscaled to 32 px.
dataset_type = 'DigitsDataset'
img_size = 32
data_preprocessor = dict(
    num_classes=10,
    # Pixel statistics of the upscaled training digits (0..255).
    mean=[78.9, 78.9, 78.9],
    std=[89.0, 89.0, 89.0],
    to_rgb=False,
)

train_pipeline = [
    dict(type='RandomResizedCrop', scale=img_size, crop_ratio_range=(0.6, 1.0),
         backend='pillow'),
    dict(type='PackInputs'),
]
test_pipeline = [dict(type='PackInputs')]

train_dataloader = dict(
    batch_size=64,
    num_workers=0,
    dataset=dict(type=dataset_type, split='train', img_size=img_size,
                 pipeline=train_pipeline),
    sampler=dict(type='DefaultSampler', shuffle=True),
)
val_dataloader = dict(
    batch_size=128,
    num_workers=0,
    dataset=dict(type=dataset_type, split='test', img_size=img_size,
                 pipeline=test_pipeline),
    sampler=dict(type='DefaultSampler', shuffle=False),
)
val_evaluator = dict(type='Accuracy', topk=(1, ))
test_dataloader = val_dataloader
test_evaluator = val_evaluator
