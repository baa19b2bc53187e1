# Linear probing on the embedded digits, the paper's protocol shrunk for a
# CPU: SGD lr 0.1, momentum 0.9, no weight decay, cosine decay over 15
# epochs (batch 128, set by the config).
max_epochs = 15
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='SGD', lr=0.1, momentum=0.9, weight_decay=0.0))
param_scheduler = [
    dict(type='CosineAnnealingLR', by_epoch=True, begin=0, end=max_epochs,
         eta_min=0.0, convert_to_iter_based=True),
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
