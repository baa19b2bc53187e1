# Paper Table "Performance of Architectures" (CIFAR10, Transformer row: LIN
# 88.0, FT 93.6) and the FLOPs table (ViT-T 483.82 M): the masked
# transformer, every decoder layer reading the last encoder layer.
_base_ = ['./randsac_vit-tiny-p4_blob-11to5_transformer-skip_8xb64-1600e_cifar10.py']
model = dict(neck=dict(skip_connection=False))
