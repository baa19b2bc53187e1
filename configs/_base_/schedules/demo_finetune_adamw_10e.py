# End-to-end fine-tuning on the embedded digits, the paper's recipe shrunk
# for a CPU: AdamW lr 1e-3 at batch 64, layer decay 0.65, weight decay 0.05
# (none on norms, biases and position embeddings), one warmup epoch, cosine
# decay to 10 epochs.
max_epochs = 10
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-3, betas=(0.9, 0.999),
                   weight_decay=0.05),
    constructor='LearningRateDecayOptimWrapperConstructor',
    paramwise_cfg=dict(layer_decay_rate=0.65,
                       custom_keys={'.ln': dict(decay_mult=0.0),
                                    '.bias': dict(decay_mult=0.0),
                                    'pos_embed': dict(decay_mult=0.0)}))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-3, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end=max_epochs,
         eta_min=1e-6, convert_to_iter_based=True),
]
train_cfg = dict(by_epoch=True, max_epochs=max_epochs, val_interval=max_epochs)
val_cfg = dict()
test_cfg = dict()
# Merged into the runtime's default_hooks by the config that lists both
# (see randsac_adamw.py).
schedule_hooks = dict(
    logger=dict(type='LoggerHook', interval=10),
    checkpoint=dict(type='AtomicCheckpointHook', interval=max_epochs,
                    max_keep_ckpts=1))
