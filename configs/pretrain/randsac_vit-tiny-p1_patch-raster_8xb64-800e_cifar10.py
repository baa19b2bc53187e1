# Paper Table "Tokenization", pixel-raster: LIN 41.70, FT 59.35.
# 1x1-pixel tokens (32x32 = 1024 tokens) predicted in raster order: the
# patch-size-1 row in raster instead of random order.
# CIFAR10, ViT-T/1 (12 x 192, 3 heads), 3-layer masked-transformer decoder,
# raw pixel targets, 800 epochs, batch 512 = 8 x 64 (Appendix "CIFAR10
# Experiments"); evaluated with the ViT-T/1 configs its base names.
_base_ = ['./randsac_vit-tiny-p1_patch-random_8xb64-800e_cifar10.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, serialization='raster')
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_dataloader.dataset.pipeline]))
