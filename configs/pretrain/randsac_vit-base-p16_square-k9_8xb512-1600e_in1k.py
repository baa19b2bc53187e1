# RandSAC-Square (K = 9, flat), ViT-B/16 at 192 px on ImageNet-1K: paper
# Table "Comparison on ImageNet-1K" (linear 72.3, fine-tune 83.7) and
# Table "Semantic Segmentation on ADE20K" (mIoU 48.3). 12x12 tokens in 4x4
# squares = 9 segments; otherwise as configs/randsac_vit-b_in1k.py.
_base_ = ['../randsac_vit-b_in1k.py']
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, square_size=4, hierarchy=())
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
