# Paper Table "Performance of Architectures" (ImageNet100, Transformer-skip
# row: LIN 70.7, FT 87.3) and the FLOPs table (ViT-S 6.77 G): ViT-S/16 at
# 224 px, blob segments 11 -> 5, 4-layer decoder with 12 heads and trainable
# skip connections, norm_pix, batch 4096 = 8 x 512, 800 epochs.
_base_ = ['./_base_/randsac_vit-small-p16_in100_800e.py']
model = dict(neck=dict(skip_connection=True))
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='blob', num_segments=11, hierarchy=(5, ))
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
