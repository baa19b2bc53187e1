# Scales down paper Table "Segment Coherence" K=7 (its LIN is also Table
# "Segments" blob-random's and Hierarchy blob 7's): 7 Gaussian blobs, random
# order. CIFAR10 ViT-T: LIN 82.52 / FT 91.14.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='blob', num_segments=7)
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
