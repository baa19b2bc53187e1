# The paper's CIFAR10 setting (Appendix "CIFAR10 Experiments", Table
# "CIFAR10 Pre-training setting") on Fashion-MNIST's 60,000 training images
# and the batch data path: ViT-T/4 (12 x 192, 3 heads), a 3-layer decoder,
# raw pixel targets, crop and flip, batch 512 on one GPU (bf16 autocast),
# 200 epochs. Run by python -m experiments.paper_scale (docs/paper_scale.md),
# or alone with tools/train.py --compile. A config on top states its row:
# the segment layout.
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit-tiny-p4.py',
    '../../_base_/datasets/fashion-mnist_randsac_batch.py',
    '../../_base_/schedules/paper_scale_adamw_200e.py',
]
default_hooks = _base_.schedule_hooks
