# RandSAC pretraining of a mini ViT/4 (6 layers x 128) on the embedded digits
# (32 px, 8x8 tokens): square segments M=2, 16 -> 4 hierarchy, random
# serialization, a 2-layer decoder with trainable skip connections. The
# first step of `make demo`; a few minutes on 2 CPU cores. Raw pixel targets
# (norm_pix=False) keep the reconstruction pictures readable.
_base_ = [
    '../_base_/datasets/digits_randsac.py',
    '../_base_/schedules/demo_randsac_adamw_40e.py',
]
model = dict(
    type='RandSAC',
    backbone=dict(
        type='RandSACViT',
        arch=dict(embed_dims=128, num_layers=6, num_heads=4,
                  feedforward_channels=512),
        img_size=32,
        patch_size=4),
    neck=dict(
        type='RandSACDecoder',
        embed_dims=128,
        num_layers=2,
        num_heads=4,
        skip_connection=True),
    head=dict(type='RandSACPretrainHead', norm_pix=False),
)
train_dataloader = dict(dataset=dict(pipeline=[
    dict(step, segment='square', square_size=2, hierarchy=(4, ))
    if step['type'] == 'RandSACSegmentGenerator' else step
    for step in _base_.train_pipeline]))
# The demo's own evaluation configs:
eval_configs = dict(
    linear='configs/demo/vit-mini-p4_linear_digits.py',
    finetune='configs/demo/vit-mini-p4_finetune_digits.py')
