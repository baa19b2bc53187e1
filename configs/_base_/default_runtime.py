# Runtime shared by every mmpretrain-scope config of randsac_mm.
default_scope = 'mmpretrain'
custom_imports = dict(imports=['randsac_mm.registration'],
                      allow_failed_imports=False)

default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50),
    param_scheduler=dict(type='ParamSchedulerHook'),
    # AtomicCheckpointHook: each checkpoint written whole (a temporary file
    # renamed over it) before an old one is removed, so a run killed while
    # saving keeps a whole checkpoint and a true last_checkpoint pointer.
    checkpoint=dict(type='AtomicCheckpointHook', interval=1,
                    max_keep_ckpts=3),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='VisualizationHook', enable=False),
)

# Log the global batch's loss (the mean over processes); stop at the first
# NaN/inf loss, before it is checkpointed; key the data randomness of
# PerSampleSeed pipelines on (seed, epoch, sample); carry the global
# generators (masks, dropout) through a resume; on SIGTERM or SIGUSR1 (a
# cluster's preemption) stop after the iteration, saying how to resume.
custom_hooks = [dict(type='MeanLogsOverProcessesHook'),
                dict(type='NonFiniteLossHook'),
                dict(type='PerSampleSeedHook'),
                dict(type='RandomStateHook'),
                dict(type='PreemptionHook')]

env_cfg = dict(
    cudnn_benchmark=False,
    mp_cfg=dict(mp_start_method='fork', opencv_num_threads=0),
    dist_cfg=dict(backend='nccl'),
)

vis_backends = [dict(type='LocalVisBackend')]
visualizer = dict(type='UniversalVisualizer', vis_backends=vis_backends)

log_level = 'INFO'
load_from = None
resume = False
randomness = dict(seed=0, deterministic=False)
