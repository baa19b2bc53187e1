# RandSAC pretraining of the demo's mini ViT on the embedded digits (a few
# minutes on 2 CPU cores): AdamW lr 1.5e-3 at batch 64, betas (0.9, 0.95),
# weight decay 0.05 (none on norms, biases and the skip weights), 2 warmup
# epochs, cosine decay to 40 epochs; bf16 autocast where the CPU computes
# bf16 natively, else float32 (randsac_mm.precision).
max_epochs = 40
optim_wrapper = dict(
    type='AutocastOptimWrapper',
    precision='auto',
    optimizer=dict(type='AdamW', lr=1.5e-3, betas=(0.9, 0.95),
                   weight_decay=0.05),
    paramwise_cfg=dict(norm_decay_mult=0.0, bias_decay_mult=0.0,
                       custom_keys={'skip_weights': dict(decay_mult=0.0)}))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-3, by_epoch=True, begin=0, end=2,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=2, end=max_epochs,
         eta_min=1e-5, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=max_epochs)
# Merged into the runtime's default_hooks by the config that lists both
# (see randsac_adamw.py).
schedule_hooks = dict(
    logger=dict(type='LoggerHook', interval=10),
    checkpoint=dict(type='AtomicCheckpointHook', interval=max_epochs,
                    max_keep_ckpts=1))
auto_scale_lr = dict(base_batch_size=64)
