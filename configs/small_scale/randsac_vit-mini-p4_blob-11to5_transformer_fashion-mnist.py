# Scales down paper Table "Performance of Architectures" (Appendix),
# CIFAR10 transformer: blob 11 -> 5, the masked transformer decoder,
# normalised pixel targets. ViT-T: LIN 88.0 / FT 93.6.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='blob', num_segments=11, hierarchy=(5, ))
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
model = dict(head=dict(norm_pix=True))
