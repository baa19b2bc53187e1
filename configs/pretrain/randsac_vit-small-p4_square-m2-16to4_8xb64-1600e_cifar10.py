# Paper Table "Low-data pre-training on CIFAR 10 and 100", RandSAC-Square
# (16 -> 4) on CIFAR10: LIN 92.1, FT 96.7.
# CIFAR10, ViT-S/4 (12 x 384, 6 heads), 6-layer decoder with trainable
# skip connections, norm_pix, 1600 epochs, batch 512 = 8 x 64 (Appendix
# "Low-data Pre-training Setting"). Evaluate with configs/benchmarks/
# {linear,finetune}/vit-small-p4_*_cifar10.py.
_base_ = ['./_base_/randsac_vit-small-p4_cifar10_1600e.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='square', square_size=2, hierarchy=(4, ),
         serialization='random')
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
