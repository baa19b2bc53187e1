# The optimizer of both transfers (segmentation and detection), batch 16 =
# 8 GPUs x 2: AdamW, weight decay 0.05 (none on norms, biases and position
# embeddings), layer-wise lr decay 0.65 over the encoder's blocks with our
# constructor (mmseg's recognises only BEiT/MAE/ConvNeXt by class name; mmdet
# has none). The schedules on top set the lr schedule and the loop.
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-4, betas=(0.9, 0.999),
                   weight_decay=0.05),
    constructor='BackboneLayerDecayOptimWrapperConstructor',
    paramwise_cfg=dict(
        layer_decay_rate=0.65,
        custom_keys={'pos_embed': dict(decay_mult=0.0),
                     '.ln': dict(decay_mult=0.0),
                     '.bias': dict(decay_mult=0.0)}))
auto_scale_lr = dict(enable=False, base_batch_size=16)
