# Supervised training of the demo's mini ViT on the embedded digits (about
# a minute on 2 CPU cores): AdamW lr 1e-3 at batch 64, weight decay 0.05,
# one warmup epoch, cosine decay to 10 epochs, validation every 5.
optim_wrapper = dict(
    optimizer=dict(type='AdamW', lr=1e-3, weight_decay=0.05,
                   betas=(0.9, 0.999)))
param_scheduler = [
    dict(type='LinearLR', start_factor=0.01, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end=10,
         eta_min=1e-5),
]
train_cfg = dict(by_epoch=True, max_epochs=10, val_interval=5)
val_cfg = dict()
test_cfg = dict()
auto_scale_lr = dict(base_batch_size=64)
# Merged into the runtime's default_hooks by the config that lists both
# (see randsac_adamw.py).
schedule_hooks = dict(logger=dict(interval=10))
