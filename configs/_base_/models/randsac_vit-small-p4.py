# RandSAC ViT-Small/4 at 32 px (CIFAR10/100 low-data setting, paper Appendix
# "Details for Section 4"): 12 x 384 x 6 heads, a 6-layer decoder of the same
# width and heads, trainable skip connections, norm_pix targets.
model = dict(
    type='RandSAC',
    backbone=dict(
        type='RandSACViT',
        arch='deit-small',  # mmpretrain's arch_zoo name of this shape
        img_size=32,
        patch_size=4),
    neck=dict(
        type='RandSACDecoder',
        embed_dims=384,
        num_layers=6,
        num_heads=6,
        skip_connection=True),
    head=dict(type='RandSACPretrainHead', norm_pix=True),
)
