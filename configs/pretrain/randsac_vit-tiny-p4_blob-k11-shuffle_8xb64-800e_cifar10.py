# Paper Table "Segment Coherence", Shuffle K=11: LIN 76.99, FT 89.15.
# Tokens are reassigned to segments at random, sizes kept.
# CIFAR10, ViT-T/4 (12 x 192, 3 heads), 3-layer masked-transformer decoder,
# raw pixel targets, 800 epochs, batch 512 = 8 x 64 (Appendix "CIFAR10
# Experiments"). Evaluate with configs/benchmarks/{linear,finetune}/
# vit-tiny-p4_*_cifar10.py.
_base_ = ['./_base_/randsac_vit-tiny-p4_cifar10_800e.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='blob', num_segments=11, coherent=False,
         serialization='random')
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
