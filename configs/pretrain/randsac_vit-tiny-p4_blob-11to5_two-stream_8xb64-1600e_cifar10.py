# Paper Table "Performance of Architectures" (CIFAR10, Two-stream row: Enc
# 7M, Dec 0M, LIN 84.4, FT 91.5) and the FLOPs table (ViT-T 499.60 M):
# XLNet-style two-stream attention with shared weights and no decoder. The
# encoder has 12 + 3 layers, the depth of encoder plus decoder of the other
# rows, which gives the table's 7M parameters.
_base_ = ['./randsac_vit-tiny-p4_blob-11to5_transformer-skip_8xb64-1600e_cifar10.py']
model = dict(
    backbone=dict(type='RandSACTwoStreamViT',
                  arch=dict(embed_dims=192, num_layers=15, num_heads=3,
                            feedforward_channels=768)),
    neck=None)
# Evaluated as the content stream through all 15 layers:
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-tiny-p4-two-stream_8xb2048-linear-coslr-90e_cifar10.py',
    finetune='configs/benchmarks/finetune/vit-tiny-p4-two-stream_8xb128-coslr-100e_cifar10.py')
