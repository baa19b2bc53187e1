# Scales down paper Table "Hierarchical Segment Prediction" square 16 -> 4:
# 16 squares of 2x2 tokens in 4 squares of squares, random at both levels.
# CIFAR10 ViT-T: LIN 82.46 / FT 91.66.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='square', square_size=2, hierarchy=(4, ))
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
