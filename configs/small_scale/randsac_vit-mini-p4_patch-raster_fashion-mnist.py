# Scales down paper Table "Serialization" (and "Tokenization") patch-raster:
# every token its own segment, predicted in raster order (iGPT's order on
# patches). CIFAR10 ViT-T: LIN 55.53 / FT 78.67.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='patch', serialization='raster')
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
