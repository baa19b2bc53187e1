# Linear probing, paper Table "Linear probing setting": LARS, base lr 0.1
# (lr = 0.1 x 16384 / 256), weight decay 0, momentum 0.9, batch 16384
# (8 GPUs x 2048), 10 warmup epochs, cosine decay, 90 epochs.
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='LARS', lr=0.1 * 16384 / 256, weight_decay=0.0,
                   momentum=0.9))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-4, by_epoch=True, begin=0, end=10,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=80, by_epoch=True, begin=10,
         end=90, eta_min=0.0),
]
train_cfg = dict(by_epoch=True, max_epochs=90, val_interval=10)
val_cfg = dict()
test_cfg = dict()
auto_scale_lr = dict(base_batch_size=16384)
# Merged into the runtime's default_hooks by the config that lists both
# (see randsac_adamw.py).
schedule_hooks = dict(
    checkpoint=dict(type='AtomicCheckpointHook', interval=10,
                    max_keep_ckpts=3))
