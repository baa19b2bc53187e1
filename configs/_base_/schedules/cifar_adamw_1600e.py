# CIFAR pretraining for 1600 epochs: paper Table "Low Data Pre-training
# setting" (Section 4) and the 1600-epoch rows of Table "CIFAR10
# Pre-training setting" (the architecture comparison). The paper states the
# optimizer of both tables alike: base_lr 1e-3 at batch 512 (lr = base_lr x
# 512 / 256), betas (0.9, 0.999), 10 warmup epochs, cosine decay. Written
# here as well as in cifar_adamw_800e.py, so that this schedule is one
# level above the shared AdamW (configs stay at most three bases deep).
_base_ = ['./randsac_adamw.py']
optim_wrapper = dict(optimizer=dict(lr=1e-3 * 512 / 256, betas=(0.9, 0.999)))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-4, by_epoch=True, begin=0, end=10,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=1590, by_epoch=True, begin=10,
         end=1600, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=1600)
auto_scale_lr = dict(base_batch_size=512)
