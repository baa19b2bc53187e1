# The 36-epoch Mask R-CNN schedule (mask-rcnn_adamw_36e.py) at the digit
# scenes' scale, for a CPU: the shared optimizer (AdamW, weight decay 0.05,
# layer decay 0.65) under AutocastOptimWrapper (bf16 on a GPU and on a CPU
# with bf16 instructions, float32 on other CPUs; mmengine's AmpOptimWrapper
# needs CUDA and scales an fp16 loss) at its lr 1e-4, kept at batch 8
# rather than halved (the heads start from scratch and the run is short);
# 100 warmup iterations, 6 epochs (1,500 iterations of 2,000 scenes, under
# half an hour on 2 cores) with
# steps at 4 and 5 (36e's 27 and 33 at the same fractions, rounded down);
# validation and a checkpoint at the end.
_base_ = ['./downstream_adamw_layer-decay.py']
max_epochs = 6
optim_wrapper = dict(type='AutocastOptimWrapper', precision='auto')
param_scheduler = [
    dict(type='LinearLR', start_factor=0.001, by_epoch=False, begin=0,
         end=100),
    dict(type='MultiStepLR', begin=0, end=max_epochs, by_epoch=True,
         milestones=[4, 5], gamma=0.1),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=max_epochs,
                 val_interval=max_epochs)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
auto_scale_lr = dict(base_batch_size=8)
# Merged into the runtime's default_hooks by the config that lists both.
schedule_hooks = dict(logger=dict(interval=20),
                      checkpoint=dict(interval=max_epochs))
