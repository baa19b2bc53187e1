# Labelled Fashion-MNIST for evaluating frozen encoders (k-NN, linear probe
# on features; tools/analysis/eval_frozen.py): the pretraining images (the
# first 6000 of the training set) and the whole 10,000-image test set,
# without augmentation, padded to 32 px.
dataset_type = 'CheckedFashionMNIST'
data_root = '/usr/share/datasets/fashion-mnist'
# No data_preprocessor: the evaluated model normalises with its own.
test_pipeline = [dict(type='PackInputs')]
loader = dict(
    batch_size=256,
    num_workers=0,
    sampler=dict(type='DefaultSampler', shuffle=False),
    collate_fn=dict(type='default_collate'))  # as the pretraining batches
train_dataloader = dict(loader, dataset=dict(
    type=dataset_type, data_root=data_root, split='train', indices=6000,
    pipeline=test_pipeline))
test_dataloader = dict(loader, dataset=dict(
    type=dataset_type, data_root=data_root, split='test',
    pipeline=test_pipeline))
test_evaluator = dict(type='Accuracy', topk=(1, ))
