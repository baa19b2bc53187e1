# The small-scale study's common recipe: RandSAC ViT-mini/4 (masked
# transformer decoder, raw pixels) on the first 6000 Fashion-MNIST training
# images at 32 px, 5 epochs on 2 CPU cores. Square segments M=2, flat,
# random order unless a variant says otherwise. Variants change only the
# segment layout (with_segments over this pipeline), the architecture or
# the target. Run by python -m experiments.small_scale; evaluated with
# tools/analysis/eval_frozen.py --data configs/_base_/datasets/fashion-mnist.py
_base_ = [
    '../../_base_/default_runtime.py',
    '../../_base_/models/randsac_vit-mini-p4.py',
    '../../_base_/datasets/fashion-mnist_randsac.py',
    '../../_base_/schedules/small_scale_adamw_5e.py',
]
from randsac_mm.segments.config import with_segments  # noqa: E402

default_hooks = _base_.schedule_hooks
train_pipeline = with_segments(
    _base_.train_pipeline, segment='square', square_size=2, hierarchy=(),
    serialization='random')
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
