# ImageNet-1K pretraining, paper Table "ImageNet-1K pre-training setting":
# base_lr 2e-4 at batch 4096 (8 GPUs x 512), betas (0.9, 0.95), 40 warmup
# epochs, cosine, 1600 epochs.
_base_ = ['./randsac_adamw.py']
optim_wrapper = dict(optimizer=dict(lr=2e-4 * 4096 / 256, betas=(0.9, 0.95)))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-4, by_epoch=True, begin=0, end=40,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=1560, by_epoch=True, begin=40,
         end=1600, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=1600)
auto_scale_lr = dict(base_batch_size=4096)
