# The paper's CIFAR recipe (AdamW, betas (0.9, 0.999), weight decay 0.05,
# warmup then cosine), shortened for 2 CPU cores: batch 64, 5 epochs with 1
# of warmup, lr 1.5e-3 (the paper's base lr scaled to batch 64, 1e-3 x 64 /
# 256 = 2.5e-4, is too slow for so short a schedule).
_base_ = ['./randsac_adamw.py']
optim_wrapper = dict(optimizer=dict(lr=1.5e-3, betas=(0.9, 0.999)))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-3, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end=5,
         eta_min=1e-5, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=5)
# Merged into the runtime's default_hooks by the config that lists both
# (see randsac_adamw.py).
schedule_hooks = dict(
    checkpoint=dict(interval=5, max_keep_ckpts=1),
    logger=dict(interval=20))
auto_scale_lr = dict(base_batch_size=64)
