# The ImageNet100 setting at 256 px (16x16 tokens) instead of the paper's
# 224 px, for the layouts of 16 equal squares that a 14x14 grid does not
# have (M must divide 14: 1, 2 or 7). Fine-tuning and probing at 224 px
# interpolate the position embeddings.
_base_ = ['./randsac_vit-small-p16_in100_800e.py']
model = dict(backbone=dict(img_size=256))
train_pipeline = [
    dict(step, scale=256) if step['type'] == 'RandomResizedCrop' else
    dict(step, input_size=256) if step['type'] == 'RandSACSegmentGenerator'
    else step for step in _base_.train_pipeline]
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
