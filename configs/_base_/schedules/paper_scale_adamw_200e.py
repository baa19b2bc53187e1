# The paper's CIFAR recipe (Table "CIFAR10 Pre-training setting"; as in
# cifar_adamw_800e.py: base_lr 1e-3 at batch 512, lr = base_lr x 512 / 256,
# betas (0.9, 0.999), 10 warmup epochs, cosine decay) for 200 epochs, batch
# 512 on one GPU: the paper-scale study's length, so that a run fits a GPU
# window (docs/paper_scale.md). Written here as well as in
# cifar_adamw_800e.py, so that this schedule is one level above the shared
# AdamW (configs stay at most three bases deep).
_base_ = ['./randsac_adamw.py']
optim_wrapper = dict(optimizer=dict(lr=1e-3 * 512 / 256, betas=(0.9, 0.999)))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-4, by_epoch=True, begin=0, end=10,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=190, by_epoch=True, begin=10,
         end=200, convert_to_iter_based=True),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=200)
# A checkpoint every 10 epochs (about 20 seconds of a run at the goal's
# speed), the latest kept: a run resumes in the next GPU window.
schedule_hooks = dict(
    checkpoint=dict(interval=10, max_keep_ckpts=1),
    logger=dict(interval=50))
auto_scale_lr = dict(base_batch_size=512)
