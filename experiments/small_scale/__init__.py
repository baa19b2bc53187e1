"""The paper's ablations at CPU scale, on real images: the small-scale study.
From the repository root:

    python -m experiments.small_scale            # 12 variants, 3 seeds, 5
        # epochs: about 1.6 h on 2 cores
    python -m experiments.small_scale --curve    # training length: 7 variants,
        # 3 seeds, 30 epochs read out at 5/10/20/30 with three readouts:
        # about 8.5 h on one core
    python -m experiments.small_scale --long-curve --variants mae --seeds 0
        # the same at 150 epochs, read out at 30/60/100/150: one run about
        # 1.2-1.7 h (MAE) to 1.8-2.0 h (RandSAC) on 2 cores, in float32
    python -m experiments.small_scale --gpu-study  # the curve's variants and
        # readouts on all 60,000 images, 5 epochs, one seed, on CUDA:
        # about 15 min on one H100 (estimated, not yet run on a GPU)
    python -m experiments.small_scale --quick    # the test's run

Each variant is a config under ``configs/small_scale/`` (its header cites
the paper row it scales down). For every variant and seed the study
pretrains it (mmengine's Runner, as ``tools/train.py`` would), keeping a
checkpoint at every epoch of ``eval_epochs``, and reads out each of those
checkpoints' frozen encoder on labelled Fashion-MNIST with
``randsac_mm.evaluation``: the paper's linear probe, a weighted k-NN and an
attentive probe. ``random`` is the same encoder initialised and not
trained (epoch 0). One long run per variant and seed thus gives a learning
curve.

A study runs on the CPU (bf16 autocast where the CPU has bf16
instructions, else float32; randsac_mm.precision, and the records say
which; the training-length studies in float32 on every CPU, so that runs
made on different machines are runs of one precision: ``--cpu-precision``)
unless its settings say 'cuda'
(``--device cuda`` or ``--gpu-study``): then it pretrains in bf16 autocast
(the configs' ``AutocastOptimWrapper``) with dataloader workers and
extracts the readouts' features and trains the probes on the GPU. A
GPU run's records name its device, so that it is never taken for a CPU
run. Asked for CUDA that cannot be used, the command stops (exit code 2),
never falling back to the CPU.

Everything lands in ``work_dir/runs/<variant>_seed<seed>/``: mmengine's
checkpoints and logs, ``pretrain.json`` (settings, losses, time) and
``eval_epoch<E>.json`` (settings, readouts). A finished run with the same
settings is reused, an interrupted one resumes from its last checkpoint,
and a readout missing from an evaluation is added to it, so a study may
stop and continue across sessions, one job at a time (a run's report also
covers the runs recorded in the work dir before it); ``--report-only``
reports the runs recorded so far without training, and reads no data.

The package: ``plan.py`` says what the study compares, ``runs.py`` runs
one variant and seed, ``verdicts.py`` gives the figures over seeds,
``report.py`` the tables and charts, and ``cli.py`` the command and its
course.
"""
from .cli import (
    add_settings_args,
    log_records,
    main,
    parse_args,
    run_study,
    study_loaders,
    write_results,
)
from .plan import (
    CONFIGS,
    CUDA_WORKERS,
    CURVE,
    EVAL_DATA,
    GPU_STUDY,
    ORDERINGS,
    PROG,
    QUICK,
    READOUT_NAMES,
    SMALL_SCALE,
    VARIANTS,
    StudyPlan,
    StudySettings,
    ordering_design,
)
from .runs import (
    checkpoint_name,
    evaluate,
    is_recorded,
    pretrain,
    recorded_readouts,
    run_dir,
    run_is_recorded,
    run_one,
    set_checkpoints,
    variant_config,
)
from .verdicts import ordering_gaps, summarize

__all__ = ['CONFIGS', 'CUDA_WORKERS', 'CURVE', 'EVAL_DATA', 'GPU_STUDY',
           'ORDERINGS', 'PROG', 'QUICK', 'READOUT_NAMES', 'SMALL_SCALE',
           'StudyPlan', 'StudySettings', 'VARIANTS', 'add_settings_args',
           'checkpoint_name', 'evaluate', 'is_recorded', 'log_records',
           'main', 'ordering_design', 'ordering_gaps', 'parse_args',
           'pretrain',
           'recorded_readouts', 'run_dir', 'run_is_recorded', 'run_one',
           'run_study',
           'set_checkpoints', 'study_loaders', 'summarize', 'variant_config',
           'write_results']
