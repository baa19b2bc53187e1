# The demo's pretraining (randsac_vit-mini-p4_square-16to4_mnist.py) with
# patch-random segments, paper Table "Serialization": every token its own
# segment, in a random order per image. An initialisation of the small
# transfer study (python -m experiments.transfer_small, docs/transfer_study.md).
_base_ = [
    './_base_/randsac_vit-mini-p4_mnist.py',
    '../_base_/schedules/small_scale_adamw_10e.py',
]
from randsac_mm.segments.config import with_segments  # noqa: E402

default_hooks = _base_.schedule_hooks
train_dataloader = dict(dataset=dict(pipeline=with_segments(
    _base_.train_pipeline, segment='patch')))
