# End-to-end fine-tuning, paper Table "End-to-end fine-tuning setting":
# AdamW, base lr 5e-4 (lr = 5e-4 x 1024 / 256), weight decay 0.05, betas
# (0.9, 0.999), layer-wise lr decay 0.65, batch 1024 (8 GPUs x 128), 5
# warmup epochs, cosine, 100 epochs, label smoothing 0.1, mixup 0.8, cutmix
# 1.0 (drop path 0.1 and RandAug(9, 0.5) are in the model and data).
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=5e-4 * 1024 / 256, betas=(0.9, 0.999),
                   weight_decay=0.05),
    constructor='LearningRateDecayOptimWrapperConstructor',
    paramwise_cfg=dict(
        layer_decay_rate=0.65,
        custom_keys={
            '.ln': dict(decay_mult=0.0),
            '.bias': dict(decay_mult=0.0),
            'pos_embed': dict(decay_mult=0.0),
        }))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-4, by_epoch=True, begin=0, end=5,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=95, by_epoch=True, begin=5,
         end=100, eta_min=1e-6, convert_to_iter_based=True),
]
train_cfg = dict(by_epoch=True, max_epochs=100, val_interval=10)
val_cfg = dict()
test_cfg = dict()
auto_scale_lr = dict(base_batch_size=1024)
# Merged into the runtime's default_hooks by the config that lists both
# (see randsac_adamw.py).
schedule_hooks = dict(
    checkpoint=dict(type='AtomicCheckpointHook', interval=10,
                    max_keep_ckpts=3))
