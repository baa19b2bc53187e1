# AdamW for RandSAC pretraining (paper Appendix): weight decay 0.05, none on
# norms, biases, positional embeddings, the query token and the skip
# weights. The schedule files below set lr, betas and the schedule.
_base_ = ['../default_runtime.py']
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-3, betas=(0.9, 0.95),
                   weight_decay=0.05),
    paramwise_cfg=dict(
        norm_decay_mult=0.0,
        bias_decay_mult=0.0,
        custom_keys={
            'pos_embed': dict(decay_mult=0.0),
            'query_token': dict(decay_mult=0.0),
            'skip_weights': dict(decay_mult=0.0),
        }))
default_hooks = dict(
    checkpoint=dict(type='CheckpointHook', interval=10, max_keep_ckpts=3),
    logger=dict(type='LoggerHook', interval=100))
