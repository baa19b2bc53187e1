# RandSAC-Square (K = 16 -> 4), ViT-B/16 at 192 px on ImageNet-1K: the paper's
# main result (Table "Comparison on ImageNet-1K": linear 68.9, fine-tune
# 83.9; transfer: ADE20K mIoU 48.5, COCO AP box 50.9 / mask 45.0).
# 12x12 tokens in 3x3 squares = 16 segments, grouped into 4 partitions;
# 8-layer decoder with trainable skip connections; norm_pix targets.
# AdamW lr 2e-4 x 4096/256, betas (0.9, 0.95), wd 0.05, 40 warmup epochs,
# cosine to 1600 epochs, batch 4096 = 8 GPUs x 512:
#   tools/dist_train.sh configs/randsac_vit-b_in1k.py 8
# (fewer GPUs: add --auto-scale-lr to scale the lr to the actual batch).
_base_ = [
    '_base_/models/randsac_vit-base-p16.py',
    '_base_/datasets/imagenet_randsac_192.py',
    '_base_/schedules/imagenet_adamw_1600e.py',
]
train_pipeline = [
    dict(step, segment='square', square_size=3, hierarchy=(4, ),
         serialization='random')
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]
train_dataloader = dict(batch_size=512, dataset=dict(pipeline=train_pipeline))
randomness = dict(seed=0, diff_rank_seed=True)
# The linear probe and fine-tuning of this encoder (also the default of
# tools/pretrain_linear_finetune.py and the configs the checkpoint loader
# names when it refuses a checkpoint).
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-base-p16_8xb2048-linear-coslr-90e_in1k.py',
    finetune='configs/benchmarks/finetune/vit-base-p16_8xb128-coslr-100e_in1k.py')
