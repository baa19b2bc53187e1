# Paper Table "Low-data pre-training on CIFAR 10 and 100", MAE row, CIFAR10
# column. mmpretrain's MAE (75% masking, norm_pix) with the ViT-S/4 encoder
# of the RandSAC rows and a decoder of RandSAC's depth, width and heads (6 x
# 384, 6 heads; the paper: "the same depth, attention head, and dimension
# as ours"), MAE's own optimizer recipe, 1600 epochs, the RandSAC rows'
# data, augmentation and batch 512 = 8 x 64. Evaluate with
# configs/benchmarks/{linear,finetune}/vit-small-p4-mae_*_cifar10.py.
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/randsac_vit-small-p4.py',
    '../_base_/datasets/cifar10_randsac.py',
    '../_base_/schedules/mae_cifar_adamw_1600e.py',
]
default_hooks = _base_.schedule_hooks
model = dict(type='MAEMatchedToRandSAC')  # see randsac_mm/models/algorithms
# MAE has no segment layout: the RandSAC rows' pipeline without its step.
train_dataloader = dict(dataset=dict(pipeline=[
    step for step in _base_.train_pipeline
    if step['type'] != 'RandSACSegmentGenerator']))
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-small-p4-mae_8xb2048-linear-coslr-90e_cifar10.py',
    finetune='configs/benchmarks/finetune/vit-small-p4-mae_8xb128-coslr-100e_cifar10.py')
