# CIFAR pretraining for 1600 epochs (paper: the architecture table and the
# low-data setting of Section 4); otherwise as cifar_adamw_800e.py.
_base_ = ['./cifar_adamw_800e.py']
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-4, by_epoch=True, begin=0, end=10,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=1590, by_epoch=True, begin=10,
         end=1600, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=1600)
