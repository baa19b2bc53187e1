# Scales down paper Table "Performance of Architectures" (Appendix),
# CIFAR10 two-stream: blob 11 -> 5, XLNet-style two-stream attention with
# shared weights and no decoder, normalised pixel targets. ViT-T: LIN 84.4 /
# FT 91.5. As the paper (7M = 5M + 2M), the shared stack has the encoder's
# plus the decoder's layers (6 + 2); the evaluated encoder is its content
# stream through all 8 layers.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='blob', num_segments=11, hierarchy=(5, ))
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
model = dict(
    backbone=dict(type='RandSACTwoStreamViT', arch=dict(num_layers=8)),
    neck=None,
    head=dict(norm_pix=True))
