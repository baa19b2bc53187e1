# RandSAC ViT-Small/16 at 224 px (ImageNet-100, paper Appendix "Details for
# Section 3"): 12 x 384 x 6 heads; a 4-layer decoder with doubled heads (12)
# and otherwise the encoder's configuration; norm_pix targets. Section 3
# default architecture: the masked transformer (no skip layer).
model = dict(
    type='RandSAC',
    backbone=dict(
        type='RandSACViT',
        arch='deit-small',  # mmpretrain's arch_zoo name of this shape
        img_size=224,
        patch_size=16),
    neck=dict(
        type='RandSACDecoder',
        embed_dims=384,
        num_layers=4,
        num_heads=12,
        skip_connection=False),
    head=dict(type='RandSACPretrainHead', norm_pix=True),
)
