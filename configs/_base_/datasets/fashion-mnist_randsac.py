# Fashion-MNIST pretraining data: the standard IDX files (Debian's
# dataset-fashion-mnist installs them in /usr/share/datasets/fashion-mnist),
# 28 px padded to 32 px RGB, so CIFAR's pipeline applies as it is (8x8
# tokens at P=4: crop, flip, layout). The first 6000 training images, in
# the main process: a run takes minutes on 2 CPU cores.
_base_ = ['./cifar10_randsac.py']
dataset_type = 'CheckedFashionMNIST'
data_root = '/usr/share/datasets/fashion-mnist'
data_preprocessor = dict(
    mean=[55.84] * 3,  # statistics of the padded training images
    std=[84.61] * 3)
train_dataloader = dict(
    num_workers=0,
    persistent_workers=False,
    dataset=dict(type=dataset_type, data_root=data_root, indices=6000))
