# The paper's CIFAR10 setting of Table "Performance of Architectures"
# (Appendix "CIFAR10 Experiments": the norm_pix rows of Table "CIFAR10
# Pre-training setting") on Fashion-MNIST's 60,000 training images and the
# batch data path: ViT-T/4, a 3-layer decoder, normalised pixel targets,
# batch 512 on one GPU, 200 epochs (the other rows' length, so that the
# study compares like with like). A config on top states its row: the
# architecture and the segment layout (blob 11 -> 5 in that table).
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit-tiny-p4.py',
    '../../_base_/datasets/fashion-mnist_randsac_batch.py',
    '../../_base_/schedules/paper_scale_adamw_200e.py',
]
default_hooks = _base_.schedule_hooks
model = dict(head=dict(norm_pix=True))
