# ImageNet-100 pretraining, paper Table "ImageNet100 Pre-training setting":
# base_lr 1.5e-4 at batch 4096, betas (0.9, 0.95), 40 warmup epochs, cosine,
# 800 epochs.
_base_ = ['./randsac_adamw.py']
optim_wrapper = dict(optimizer=dict(lr=1.5e-4 * 4096 / 256,
                                    betas=(0.9, 0.95)))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-4, by_epoch=True, begin=0, end=40,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=760, by_epoch=True, begin=40,
         end=800, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=800)
auto_scale_lr = dict(base_batch_size=4096)
