# Paper Table "Performance of Architectures" (ImageNet100, Transformer row:
# LIN 65.8, FT 85.9) and the FLOPs table (ViT-S 6.73 G): the masked
# transformer without the skip layer.
_base_ = ['./randsac_vit-small-p16_blob-11to5_transformer-skip_8xb512-800e_in100.py']
model = dict(neck=dict(skip_connection=False))
