# Scales down paper Table "Serialization" patch-random (= Square size M=1):
# every token its own segment, in a random order per image. CIFAR10 ViT-T:
# LIN 75.53 / FT 87.52.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='patch')
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
