# The small-scale recipe (small_scale_adamw_5e.py) run for 10 epochs: the
# same warmup epoch, its cosine decay stretched to epoch 10, one checkpoint
# at the end. `make demo`'s MNIST pretraining.
_base_ = ['./small_scale_adamw_5e.py']
param_scheduler = [
    _base_.param_scheduler[0], dict(_base_.param_scheduler[1], end=10)]
train_cfg = dict(max_epochs=10)
schedule_hooks = dict(checkpoint=dict(interval=10))
