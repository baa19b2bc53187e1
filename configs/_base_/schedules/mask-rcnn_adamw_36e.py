# Mask R-CNN on COCO (mmdet scope), batch 16 = 8 GPUs x 2. The paper gives
# no schedule (Appendix "Object Detection on COCO"); ours: AdamW lr 1e-4,
# weight decay 0.05, layer-wise lr decay 0.65 over the 12 blocks (our
# constructor), 1000 warmup iterations, 36 epochs with steps at 27 and 33,
# validation every 3.
_base_ = ['./downstream_adamw_layer-decay.py']
max_epochs = 36
param_scheduler = [
    dict(type='LinearLR', start_factor=0.001, by_epoch=False, begin=0,
         end=1000),
    dict(type='MultiStepLR', begin=0, end=max_epochs, by_epoch=True,
         milestones=[27, 33], gamma=0.1),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=max_epochs,
                 val_interval=3)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
# Merged into the runtime's default_hooks by the config that lists both.
schedule_hooks = dict(checkpoint=dict(interval=3))
