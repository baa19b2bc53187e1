# RandSAC pretraining of a mini ViT/4 (6 layers x 128) on the embedded digits
# (32 px, 8x8 tokens): square segments M=2, 16 -> 4 hierarchy, random
# serialization, a 2-layer decoder with trainable skip connections. The
# first step of `make demo`; a few minutes on 2 CPU cores. Raw pixel targets
# (norm_pix=False) keep the reconstruction pictures readable.
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/archs/vit-mini-digits.py',
    '../_base_/datasets/digits_randsac.py',
    '../_base_/schedules/demo_randsac_adamw_40e.py',
]
from randsac_mm.segments.config import with_segments  # noqa: E402

default_hooks = _base_.schedule_hooks
model = dict(
    type='RandSAC',
    backbone=dict(
        type='RandSACViT',
        arch=_base_.encoder_arch,
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
train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='square', square_size=2, hierarchy=(4, ))))
# The demo's own evaluation configs:
eval_configs = dict(
    linear='configs/demo/vit-mini-p4_linear_digits.py',
    finetune='configs/demo/vit-mini-p4_finetune_digits.py')
