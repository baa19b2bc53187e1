# Paper Table "Patch-random tokenization as a function of P", 1x1: LIN 59.79,
# FT 79.7. 32x32 tokens.
# CIFAR10, ViT-T/1 (12 x 192, 3 heads), 3-layer masked-transformer decoder,
# raw pixel targets, 800 epochs, batch 512 = 8 x 64 (Appendix "CIFAR10
# Experiments"). Evaluate with configs/benchmarks/{linear,finetune}/
# vit-tiny-p1_*_cifar10.py (its eval_configs).
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
model = dict(backbone=dict(patch_size=1))
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, patch_size=model['backbone']['patch_size'], segment='patch',
         serialization='random')
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
# Its encoder's evaluation configs:
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-tiny-p1_8xb2048-linear-coslr-90e_cifar10.py',
    finetune='configs/benchmarks/finetune/vit-tiny-p1_8xb128-coslr-100e_cifar10.py')
