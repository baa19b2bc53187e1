# UperNet on ADE20K (mmseg scope), BEiT's recipe for self-supervised ViT-B
# checkpoints, which the paper follows (Appendix "Semantic segmentation on
# ADE20K"): microsoft/unilm beit/semantic_segmentation/configs/beit/upernet/
# upernet_beit_base_12_512_slide_160k_ade20k_pt.py (marked there as the one
# for self-supervised models) and its _base_ schedule_160k.py. From it: AdamW
# lr 7e-4, betas (0.9, 0.999), weight decay 0.05, layer decay 0.65 over 12
# blocks (block i at 0.65^(12 - i), patch and position embeddings at
# 0.65^13, the heads at 1; our constructor gives the same), 1500 linear
# warmup iterations from 1e-6, then poly (power 1) to 0 at 160k, batch 16 =
# 8 GPUs x 2, fp16 mixed precision (BEiT: apex O1; here mmengine's
# AmpOptimWrapper with dynamic loss scaling; CUDA only), validation every
# 16k. BEiT exempts every 1-D parameter and bias from weight decay; we
# exempt norms, biases and the position embedding (BEiT has none).
_base_ = ['./downstream_adamw_layer-decay.py']
optim_wrapper = dict(type='AmpOptimWrapper', loss_scale='dynamic',
                     optimizer=dict(lr=7e-4))
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
# Merged into the runtime's default_hooks by the config that lists both.
schedule_hooks = dict(checkpoint=dict(interval=16000))
