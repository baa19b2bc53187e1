# Paper Table "Hierarchical Segment Prediction" (ImageNet100), blob 3: LIN 56.26, FT 81.34.
# ImageNet100, ViT-S/16 at 224 px (14x14 tokens), 4-layer masked-transformer
# decoder with 12 heads, norm_pix, 800 epochs, batch 4096 = 8 x 512 (Appendix
# "ImageNet100 Experiments"). Evaluate with configs/benchmarks/{linear,
# finetune}/vit-small-p16_*_in100.py.
_base_ = ['./_base_/randsac_vit-small-p16_in100_800e.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='blob', num_segments=3, serialization='random')
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
