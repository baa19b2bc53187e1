# Paper Table "Performance of Architectures" (ImageNet100, Two-stream row:
# Enc 30M, Dec 0M, LIN 62.4, FT 84.6) and the FLOPs table (ViT-S 10.94 G):
# two-stream attention, shared weights, 12 + 4 layers, no decoder.
_base_ = ['./randsac_vit-small-p16_blob-11to5_transformer-skip_8xb512-800e_in100.py']
model = dict(
    backbone=dict(type='RandSACTwoStreamViT',
                  arch=dict(embed_dims=384, num_layers=16, num_heads=6,
                            feedforward_channels=1536)),
    neck=None)
# Evaluated as the content stream through all 16 layers:
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-small-p16-two-stream_8xb2048-linear-coslr-90e_in100.py',
    finetune='configs/benchmarks/finetune/vit-small-p16-two-stream_8xb128-coslr-100e_in100.py')
