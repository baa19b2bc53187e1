# RandSAC-Square (K = 16 -> 4), ViT-B/16 at 192 px on ImageNet-1K: the
# paper's main result, Table "Comparison on ImageNet-1K", row
# "RandSAC-Square (K=16->4)", and the ViT-B row of Table "FLOPs of Three
# Candidate Architectures"; its transfers are Table "Semantic Segmentation
# on ADE20K" and Table "Object Detection on COCO" (the figures:
# configs/metafile.yml). 12x12 tokens in 3x3 squares = 16 segments, grouped
# into 4 partitions; 8-layer decoder with trainable skip connections;
# norm_pix targets. AdamW lr 2e-4 x 4096/256, betas (0.9, 0.95), wd 0.05, 40
# warmup epochs, cosine to 1600 epochs, batch 4096 = 8 GPUs x 512:
#   tools/dist_train.sh configs/randsac_vit-b_in1k.py 8
# (fewer GPUs: add --auto-scale-lr to scale the lr to the actual batch).
_base_ = [
    '_base_/default_runtime.py',
    '_base_/models/randsac_vit-base-p16.py',
    '_base_/datasets/imagenet_randsac_192.py',
    '_base_/schedules/imagenet_adamw_1600e.py',
]
from randsac_mm.segments.config import with_segments  # noqa: E402

default_hooks = _base_.schedule_hooks
train_dataloader = dict(batch_size=512, dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=3, hierarchy=(4, ),
    serialization='random')))
randomness = dict(seed=0, diff_rank_seed=True)
# The linear probe and fine-tuning of this encoder (also the default of
# tools/pretrain_linear_finetune.py and the configs the checkpoint loader
# names when it refuses a checkpoint).
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-base-p16_8xb2048-linear-coslr-90e_in1k.py',
    finetune='configs/benchmarks/finetune/vit-base-p16_8xb128-coslr-100e_in1k.py')
