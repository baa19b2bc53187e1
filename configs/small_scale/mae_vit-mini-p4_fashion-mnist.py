# Scales down the MAE row of paper Table "Low-data pre-training" (CIFAR10
# ViT-S: LIN 87.3 / FT 95.9, against RandSAC-Blob 11 -> 5 at 93.9 / 96.9):
# mmpretrain's own MAE, 75% random masking, normalised pixel targets, the
# same encoder as the study's RandSAC and a decoder matched to RandSAC's
# (the paper: "the same depth, attention head, and dimension as ours").
# Same data, augmentation and schedule; no segment layout.
_base_ = ['./_base_/randsac_vit-mini-p4_fashion-mnist.py']
encoder = _base_.model.backbone
decoder = _base_.model.neck
model = dict(
    _delete_=True,
    type='MAE',
    backbone=dict(type='MAEViT', arch=encoder.arch,
                  img_size=encoder.img_size, patch_size=encoder.patch_size,
                  mask_ratio=0.75, out_type='featmap'),
    neck=dict(type='MAEPretrainDecoder', num_patches=64,
              patch_size=encoder.patch_size, in_chans=3,
              embed_dim=encoder.arch.embed_dims,
              decoder_embed_dim=decoder.embed_dims,
              decoder_depth=decoder.num_layers,
              decoder_num_heads=decoder.num_heads,
              mlp_ratio=4),  # RandSACDecoder's default
    head=dict(type='MAEPretrainHead', norm_pix=True,
              patch_size=encoder.patch_size,
              loss=dict(type='PixelReconstructionLoss', criterion='L2')),
    init_cfg=[dict(type='Xavier', layer='Linear', distribution='uniform'),
              dict(type='Constant', layer='LayerNorm', val=1.0, bias=0.0)])
train_dataloader = dict(dataset=dict(pipeline=[
    step for step in _base_.train_pipeline
    if step['type'] != 'RandSACSegmentGenerator']))
