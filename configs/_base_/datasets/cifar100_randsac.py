# CIFAR-100 pretraining data (standard python batches under data/cifar100/
# cifar-100-python); pipeline as cifar10_randsac.py.
_base_ = ['./cifar10_randsac.py']
data_preprocessor = dict(
    mean=[129.304, 124.070, 112.434], std=[68.170, 65.392, 70.418])
train_dataloader = dict(
    dataset=dict(type='CheckedCIFAR100', data_root='data/cifar100'))
