# UperNet on ADE20K (mmseg scope), paper Appendix "Semantic segmentation on
# ADE20K" (the BEiT setting), batch 16 = 8 GPUs x 2: AdamW with layer-wise
# lr decay 0.65 over the 12 blocks (our constructor: mmseg's recognises only
# BEiT/MAE/ConvNeXt by class name), 1500 warmup iterations, then linear
# decay to 160k (as mmseg's MAE/BEiT UperNet); validation every 16k.
_base_ = ['./downstream_adamw_layer-decay.py']
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0,
         end=1500),
    dict(type='PolyLR', power=1.0, begin=1500, end=160000, eta_min=0.0,
         by_epoch=False),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=160000,
                 val_interval=16000)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
