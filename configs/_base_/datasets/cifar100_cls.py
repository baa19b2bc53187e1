# CIFAR-100 classification for fine-tuning and linear probing (32 px, the
# standard python batches under data/cifar100/cifar-100-python); pipelines
# as cifar10_cls.py.
_base_ = ['./cifar10_cls.py']
data_root = 'data/cifar100'
data_preprocessor = dict(
    num_classes=100,
    mean=[129.304, 124.070, 112.434],
    std=[68.170, 65.392, 70.418])
train_dataloader = dict(
    dataset=dict(type='CheckedCIFAR100', data_root=data_root))
val_dataloader = dict(
    dataset=dict(type='CheckedCIFAR100', data_root=data_root))
val_evaluator = dict(type='Accuracy', topk=(1, 5))
test_dataloader = val_dataloader
test_evaluator = val_evaluator
