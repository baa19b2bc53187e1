# Paper Table "Patch-random tokenization as a function of P", 1x1:
# patch-random with 1x1-pixel patches (32x32 = 1024 tokens); otherwise the
# CIFAR10 setting.
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

model = dict(backbone=dict(patch_size=1))
train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, patch_size=model['backbone']['patch_size'],
    segment='patch', serialization='random')))
# Its encoder's evaluation configs:
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-tiny-p1_8xb2048-linear-coslr-90e_cifar10.py',
    finetune='configs/benchmarks/finetune/vit-tiny-p1_8xb128-coslr-100e_cifar10.py')
