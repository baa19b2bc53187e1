# Scales down paper Table "Performance of Architectures" (Appendix),
# CIFAR10 transformer-skip: blob 11 -> 5, the decoder with the trainable
# skip layer, normalised pixel targets. ViT-T: LIN 89.5 / FT 94.4.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='blob', num_segments=11, hierarchy=(5, ))
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
model = dict(neck=dict(skip_connection=True), head=dict(norm_pix=True))
