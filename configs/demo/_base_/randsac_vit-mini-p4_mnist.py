# The demo's pretraining without its segment layout: RandSAC ViT-mini/4
# with the transformer-skip decoder (the paper's CIFAR recipe) on the 4000
# training digits of MNIST5k. The demo (square 16 -> 4) and the small
# transfer study's other pretrainings (patch-random, MAE) each add their
# layout, or MAE, and the 10-epoch schedule.
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit-mini-p4.py',
    '../../_base_/datasets/mnist5k_randsac.py',
]
model = dict(neck=dict(skip_connection=True))
