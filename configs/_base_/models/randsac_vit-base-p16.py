# RandSAC ViT-Base/16 at 192 px (ImageNet-1K, paper Appendix "ImageNet-1K
# Pre-training Setting"): 12 x 768 x 12 heads; an 8-layer decoder with the
# encoder's width and heads; trainable skip connections; norm_pix targets.
model = dict(
    type='RandSAC',
    backbone=dict(
        type='RandSACViT',
        arch='base',
        img_size=192,
        patch_size=16),
    neck=dict(
        type='RandSACDecoder',
        embed_dims=768,
        num_layers=8,
        num_heads=12,
        skip_connection=True),
    head=dict(type='RandSACPretrainHead', norm_pix=True),
)
