# The ImageNet100 setting (randsac_vit-small-p16_in100_800e.py) at 256 px
# (16x16 tokens) instead of the paper's 224 px, for the layouts of 16 equal
# squares that a 14x14 grid does not have (M must divide 14: 1, 2 or 7).
# Fine-tuning and probing at 224 px interpolate the position embeddings.
# Its bases are listed again rather than inherited from the 224 px setting,
# so that its configs stay at most three bases deep.
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit-small-p16.py',
    '../../_base_/datasets/imagenet100_randsac.py',
    '../../_base_/schedules/imagenet100_adamw_800e.py',
]
default_hooks = _base_.schedule_hooks
model = dict(backbone=dict(img_size=256))
# The crop and the layout step's token grid at 256 px.
train_pipeline = [
    dict(step, scale=256) if step['type'] == 'RandomResizedCrop' else
    dict(step, input_size=256) if step['type'] == 'RandSACSegmentGenerator'
    else step for step in _base_.train_pipeline]
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
# The 224 px setting's linear probe and fine-tuning.
eval_configs = dict(
    linear='configs/benchmarks/linear/vit-small-p16_8xb2048-linear-coslr-90e_in100.py',
    finetune='configs/benchmarks/finetune/vit-small-p16_8xb128-coslr-100e_in100.py')
