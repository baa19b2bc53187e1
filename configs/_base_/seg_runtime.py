# Runtime of the segmentation configs (mmseg scope): mmseg's hooks and
# visualizer, our modules registered, atomic checkpoints
# (AtomicCheckpointHook; the interval is the schedule's, schedule_hooks),
# the random state carried through a resume (drop path).
default_scope = 'mmseg'
custom_imports = dict(imports=['randsac_mm.downstream'],
                      allow_failed_imports=False)
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='AtomicCheckpointHook', by_epoch=False,
                    max_keep_ckpts=3),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='SegVisualizationHook'))
custom_hooks = [dict(type='NonFiniteLossHook'),
                dict(type='RandomStateHook'),  # drop path through a resume
                dict(type='PreemptionHook')]  # SIGTERM, SIGUSR1: save, stop
env_cfg = dict(cudnn_benchmark=True,
               mp_cfg=dict(mp_start_method='fork', opencv_num_threads=0),
               dist_cfg=dict(backend='nccl'))
vis_backends = [dict(type='LocalVisBackend')]
visualizer = dict(type='SegLocalVisualizer', vis_backends=vis_backends,
                  name='visualizer')
log_processor = dict(by_epoch=False)
log_level = 'INFO'
load_from = None
resume = False
randomness = dict(seed=0)
