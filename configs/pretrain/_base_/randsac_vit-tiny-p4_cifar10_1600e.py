# The CIFAR10 setting of paper Table "Performance of Architectures"
# (Appendix "CIFAR10 Experiments": its 1600-epoch, norm_pix rows of Table
# "CIFAR10 Pre-training setting"): ViT-T/4, a 3-layer decoder, normalised
# pixel targets, 1600 epochs, batch 512 = 8 x 64. A config on top states
# its row: the segment layout (blob 11 -> 5 in that table) and the
# architecture (two-stream, transformer, transformer-skip).
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit-tiny-p4.py',
    '../../_base_/datasets/cifar10_randsac.py',
    '../../_base_/schedules/cifar_adamw_1600e.py',
]
default_hooks = _base_.schedule_hooks
model = dict(head=dict(norm_pix=True))
# The linear probe and fine-tuning of this encoder (the same as the
# 800-epoch setting's).
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-tiny-p4_8xb2048-linear-coslr-90e_cifar10.py',
    finetune='configs/benchmarks/finetune/vit-tiny-p4_8xb128-coslr-100e_cifar10.py')
