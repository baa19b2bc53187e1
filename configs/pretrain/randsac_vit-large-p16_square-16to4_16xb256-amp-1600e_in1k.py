# RandSAC-Square (K = 16 -> 4), ViT-L/16 at 192 px on ImageNet-1K: the path
# to larger models (the paper stops at ViT-B, Table "Comparison on
# ImageNet-1K"). The main config's recipe (AdamW 2e-4 x 4096/256, betas
# (0.9, 0.95), 40 warmup epochs, cosine to 1600, bf16 autocast) at the same
# global batch 4096 = 16 GPUs x 256 (a ViT-L step keeps about 2.7 times
# ViT-B's activations; tools/analysis/pretrain_memory.py gives the peak):
#   tools/dist_train.sh configs/pretrain/randsac_vit-large-p16_square-16to4_16xb256-amp-1600e_in1k.py 8
# on each of 2 nodes (NNODES=2 NODE_RANK=0/1 MASTER_ADDR=...).
# Sharded over the GPUs instead: the -fsdp config beside this one.
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/randsac_vit-large-p16.py',
    '../_base_/datasets/imagenet_randsac_192.py',
    '../_base_/schedules/imagenet_adamw_1600e.py',
]
from randsac_mm.segments.config import with_segments  # noqa: E402

default_hooks = _base_.schedule_hooks
train_dataloader = dict(batch_size=256, dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=3, hierarchy=(4, ),
    serialization='random')))
randomness = dict(seed=0, diff_rank_seed=True)
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-large-p16_8xb2048-linear-coslr-90e_in1k.py',
    finetune='configs/benchmarks/finetune/vit-large-p16_8xb128-coslr-100e_in1k.py')
