# The ImageNet100 setting of paper Section 3 (Appendix "ImageNet100
# Experiments", Table "ImageNet100 Pre-training setting"): ViT-S/16 at 224
# px (14x14 tokens), 4-layer masked-transformer decoder with 12 heads,
# norm_pix targets; crop and flip; 800 epochs, batch 4096 = 8 x 512. A
# config on top states its row: the segment layout, the architecture.
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit-small-p16.py',
    '../../_base_/datasets/imagenet100_randsac.py',
    '../../_base_/schedules/imagenet100_adamw_800e.py',
]
default_hooks = _base_.schedule_hooks
# The linear probe and fine-tuning of this encoder (also the default of
# tools/pretrain_linear_finetune.py and the configs the checkpoint loader
# names when it refuses a checkpoint).
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-small-p16_8xb2048-linear-coslr-90e_in100.py',
    finetune='configs/benchmarks/finetune/vit-small-p16_8xb128-coslr-100e_in100.py')
