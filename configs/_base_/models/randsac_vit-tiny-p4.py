# RandSAC ViT-Tiny/4 at 32 px (CIFAR, paper Appendix "Details for Section 3"):
# 12 layers x 192 wide x 3 heads; a 3-layer decoder like the encoder.
# Section 3 default architecture: the masked transformer (no skip layer) and
# raw pixel targets (Table "CIFAR10 Pre-training setting").
model = dict(
    type='RandSAC',
    backbone=dict(
        type='RandSACViT',
        arch='deit-tiny',  # mmpretrain's arch_zoo name of this shape
        img_size=32,
        patch_size=4,
        pos_embed_type='sincos'),
    neck=dict(
        type='RandSACDecoder',
        embed_dims=192,
        num_layers=3,
        num_heads=3,
        skip_connection=False),
    head=dict(type='RandSACPretrainHead', norm_pix=False),
)
