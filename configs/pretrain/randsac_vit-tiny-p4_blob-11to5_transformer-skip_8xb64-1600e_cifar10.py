# Paper Table "Performance of Architectures" (CIFAR10, Transformer-skip row:
# LIN 89.5, FT 94.4) and the FLOPs table (ViT-T 484.26 M): ViT-T/4, blob
# segments 11 -> 5, 3-layer decoder with trainable skip connections,
# norm_pix targets, 1600 epochs (Appendix "CIFAR10 Experiments").
_base_ = [
    '../_base_/models/randsac_vit-tiny-p4.py',
    '../_base_/datasets/cifar10_randsac.py',
    '../_base_/schedules/cifar_adamw_1600e.py',
]
model = dict(neck=dict(skip_connection=True), head=dict(norm_pix=True))
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='blob', num_segments=11, hierarchy=(5, ))
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
# The linear probe and fine-tuning of this encoder (also the default of
# tools/pretrain_linear_finetune.py and the configs the checkpoint loader
# names when it refuses a checkpoint).
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-tiny-p4_8xb2048-linear-coslr-90e_cifar10.py',
    finetune='configs/benchmarks/finetune/vit-tiny-p4_8xb128-coslr-100e_cifar10.py')
