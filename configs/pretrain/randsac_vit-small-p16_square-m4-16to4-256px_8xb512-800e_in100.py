# Paper Table "Hierarchical Segment Prediction" (ImageNet100), square 16 -> 4: LIN
# 65.81, FT 85.55.
# Deviation: 256 px (16x16 tokens) instead of the paper's 224 px: a 14x14
# grid has no 16 equal squares (M must divide 14: 1, 2 or 7). Fine-tuning
# and probing at 224 px interpolate the position embeddings.
# ImageNet100, ViT-S/16 at 224 px (14x14 tokens), 4-layer masked-transformer
# decoder with 12 heads, norm_pix, 800 epochs, batch 4096 = 8 x 512 (Appendix
# "ImageNet100 Experiments"). Evaluate with configs/benchmarks/{linear,
# finetune}/vit-small-p16_*_in100.py.
_base_ = ['./_base_/randsac_vit-small-p16-256px_in100_800e.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='square', square_size=4, hierarchy=(4, ),
         serialization='random')
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
