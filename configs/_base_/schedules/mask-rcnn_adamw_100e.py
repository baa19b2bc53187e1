# Mask R-CNN on COCO (mmdet scope), the schedule of Li et al. 2021,
# "Benchmarking Detection Transfer Learning with Vision Transformers"
# (arXiv 2111.11429) for ViT-B from MAE, its Sections 2.3 and 4.2: batch
# 64, AdamW betas (0.9, 0.999), lr 8e-5, weight decay 0.1 (tuned there),
# no layer-wise lr decay, mixed precision; linear warmup for 0.25 epochs
# (462 iterations of batch 64 on COCO train2017's 118k images), then
# half-period cosine decay to 0 over 100 epochs (its reported numbers use
# 100). fp16 needs CUDA.
_base_ = ['./downstream_adamw_layer-decay.py']
optim_wrapper = dict(
    type='AmpOptimWrapper', loss_scale='dynamic',
    optimizer=dict(lr=8e-5, weight_decay=0.1),
    paramwise_cfg=dict(layer_decay_rate=1.0))
max_epochs = 100
param_scheduler = [
    dict(type='LinearLR', start_factor=0.001, by_epoch=False, begin=0,
         end=462),
    dict(type='CosineAnnealingLR', T_max=max_epochs, eta_min=0.0,
         by_epoch=True, begin=0, end=max_epochs, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=max_epochs,
                 val_interval=10)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
auto_scale_lr = dict(enable=False, base_batch_size=64)
# Merged into the runtime's default_hooks by the config that lists both.
schedule_hooks = dict(checkpoint=dict(interval=3))
