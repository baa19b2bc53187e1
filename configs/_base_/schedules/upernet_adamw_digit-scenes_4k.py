# The UperNet schedule (upernet_adamw_160k.py) at the digit scenes' scale,
# for a CPU: the shared optimizer (AdamW, weight decay 0.05, layer decay
# 0.65) under AutocastOptimWrapper: bf16 on a GPU and on a CPU with bf16
# instructions, float32 on other CPUs (mmengine's AmpOptimWrapper needs
# CUDA and scales an fp16 loss), lr 7e-4 at batch 16 scaled to 3.5e-4 at
# batch 8, 50 warmup iterations from 1e-6 then poly to 0 at 4,000
# iterations (16 epochs of 2,000 scenes:
# neither the demo's encoder nor random init tells one digit from another
# before about 2,000; docs/transfer_study.md); validation and a checkpoint at
# the end.
_base_ = ['./downstream_adamw_layer-decay.py']
max_iters = 4000
optim_wrapper = dict(type='AutocastOptimWrapper', precision='auto',
                     optimizer=dict(lr=3.5e-4))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0,
         end=50),
    dict(type='PolyLR', power=1.0, begin=50, end=max_iters, eta_min=0.0,
         by_epoch=False),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters,
                 val_interval=max_iters)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
auto_scale_lr = dict(base_batch_size=8)
# Merged into the runtime's default_hooks by the config that lists both.
schedule_hooks = dict(logger=dict(interval=20),
                      checkpoint=dict(interval=max_iters))
