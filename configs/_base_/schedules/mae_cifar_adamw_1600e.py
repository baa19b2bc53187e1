# MAE's own pretraining recipe (paper: "The MAE and DINO are pretrained
# using their official implementations", 1600 epochs), as mmpretrain's
# configs/mae/mae_vit-base-p16_8xb512-amp-coslr-1600e_in1k.py gives it:
# AdamW base lr 1.5e-4 (lr = base x batch / 256), betas (0.9, 0.95), weight
# decay 0.05 except norms, biases, position embedding, mask and class
# tokens, 40 warmup epochs, cosine. At the CIFAR rows' batch 512.
_base_ = ['./randsac_adamw.py']
optim_wrapper = dict(
    optimizer=dict(lr=1.5e-4 * 512 / 256, betas=(0.9, 0.95)),
    paramwise_cfg=dict(custom_keys={
        'mask_token': dict(decay_mult=0.0),
        'cls_token': dict(decay_mult=0.0),
    }))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-4, by_epoch=True, begin=0, end=40,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=1560, by_epoch=True, begin=40,
         end=1600, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=1600)
auto_scale_lr = dict(base_batch_size=512)
