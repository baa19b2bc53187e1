# Scales down paper Table "Hierarchical Segment Prediction" blob 7 -> 3:
# 7 blobs grouped into 3 partitions. CIFAR10 ViT-T: LIN 82.71 / FT 91.20.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='blob', num_segments=7, hierarchy=(3, ))
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
