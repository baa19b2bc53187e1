# Scales down paper Table "Segment Coherence" Shuffle K=7: blob sizes of
# K=7, tokens shuffled between segments (no spatial coherence). CIFAR10
# ViT-T: LIN 76.69 / FT 89.22.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='blob', num_segments=7, coherent=False)
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
