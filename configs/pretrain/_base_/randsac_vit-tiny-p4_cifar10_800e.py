# The CIFAR10 setting of paper Section 3 (Appendix "CIFAR10 Experiments",
# Table "CIFAR10 Pre-training setting"): ViT-T/4 (12 x 192, 3 heads),
# 3-layer masked-transformer decoder, raw pixel targets; crop and flip; 800
# epochs, batch 512 = 8 x 64. A config on top states its row: the segment
# layout, the tokenization.
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit-tiny-p4.py',
    '../../_base_/datasets/cifar10_randsac.py',
    '../../_base_/schedules/cifar_adamw_800e.py',
]
default_hooks = _base_.schedule_hooks
# The linear probe and fine-tuning of this encoder (also the default of
# tools/pretrain_linear_finetune.py and the configs the checkpoint loader
# names when it refuses a checkpoint).
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-tiny-p4_8xb2048-linear-coslr-90e_cifar10.py',
    finetune='configs/benchmarks/finetune/vit-tiny-p4_8xb128-coslr-100e_cifar10.py')
