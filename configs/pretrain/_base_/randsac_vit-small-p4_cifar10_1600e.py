# The low-data CIFAR10 setting of paper Section 4 (Appendix "Low-data
# Pre-training Setting", Table "Low Data Pre-training setting"): ViT-S/4
# (12 x 384, 6 heads), 6-layer decoder with trainable skip connections,
# norm_pix, 1600 epochs, batch 512 = 8 x 64. A config on top states its
# segment layout.
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit-small-p4.py',
    '../../_base_/datasets/cifar10_randsac.py',
    '../../_base_/schedules/cifar_adamw_1600e.py',
]
default_hooks = _base_.schedule_hooks
# The linear probe and fine-tuning of this encoder.
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-small-p4_8xb2048-linear-coslr-90e_cifar10.py',
    finetune='configs/benchmarks/finetune/vit-small-p4_8xb128-coslr-100e_cifar10.py')
