# ImageNet-100 classification at 224 px (the 100 classes of imagenet100.txt):
# data/imagenet100/{train,val}/<wnid>/*.JPEG (a full ImageNet root works
# too); pipelines as imagenet_cls.py.
_base_ = ['./imagenet_cls.py']
data_root = 'data/imagenet100'
data_preprocessor = dict(num_classes=100)
train_dataloader = dict(dataset=dict(type='ImageNet100', data_root=data_root))
val_dataloader = dict(dataset=dict(type='ImageNet100', data_root=data_root))
test_dataloader = val_dataloader
