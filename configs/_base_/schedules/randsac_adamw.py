# AdamW for RandSAC pretraining (paper Appendix): weight decay 0.05, none on
# norms, biases, positional embeddings, the query token and the skip
# weights. The schedule files on top set lr, betas and the schedule.
# Precision: bf16 autocast on GPUs (with TF32 for what stays float32) and on
# CPUs with bf16 instructions, float32 on other CPUs (the log says which and
# why; tools/train.py --amp or --fp32 forces either); a fused AdamW on GPUs,
# torch's default AdamW on a CPU.
# No runtime here: a config lists _base_/default_runtime.py beside its
# schedule.
optim_wrapper = dict(
    type='AutocastOptimWrapper',
    dtype='bfloat16',
    precision='auto',
    constructor='FusedAdamWConstructor',
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
# Checkpoint and log intervals for runs of hundreds of epochs. Not named
# default_hooks: mmengine refuses a key that two bases of one config both
# define, and the runtime defines that one. A config that lists a schedule
# beside the runtime merges these into the runtime's hooks with
#   default_hooks = _base_.schedule_hooks
schedule_hooks = dict(
    checkpoint=dict(type='AtomicCheckpointHook', interval=10,
                    max_keep_ckpts=3),
    logger=dict(type='LoggerHook', interval=100))
