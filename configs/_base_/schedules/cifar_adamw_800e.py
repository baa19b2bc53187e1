# CIFAR pretraining, paper Table "CIFAR10 Pre-training setting": base_lr
# 1e-3 at batch 512 (lr = base_lr x 512 / 256), betas (0.9, 0.999), 10
# warmup epochs, cosine decay, 800 epochs.
_base_ = ['./randsac_adamw.py']
optim_wrapper = dict(optimizer=dict(lr=1e-3 * 512 / 256, betas=(0.9, 0.999)))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-4, by_epoch=True, begin=0, end=10,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=790, by_epoch=True, begin=10,
         end=800, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=800)
auto_scale_lr = dict(base_batch_size=512)
