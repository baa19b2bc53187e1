# RandSAC ViT-Large/16 at 192 px: 24 x 1024 x 16 heads. The paper trains
# up to ViT-B; this scales its ViT-B recipe (an 8-layer decoder with the
# encoder's width and heads, trainable skip connections, norm_pix targets)
# to the larger encoder.
model = dict(
    type='RandSAC',
    backbone=dict(
        type='RandSACViT',
        arch='large',
        img_size=192,
        patch_size=16),
    neck=dict(
        type='RandSACDecoder',
        embed_dims=1024,
        num_layers=8,
        num_heads=16,
        skip_connection=True),
    head=dict(type='RandSACPretrainHead', norm_pix=True),
)
