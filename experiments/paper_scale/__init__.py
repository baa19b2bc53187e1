r"""The paper's CIFAR-scale rows on one GPU, run by run: the paper-scale
study. From the repository root:

    python -m experiments.paper_scale --plan      # what is done, what
        # remains, minutes per run: docs/benchmarks/paper_scale/plan.md
    python -m experiments.paper_scale --budget-minutes 8   # on a GPU: the
        # next run, and more while they fit in 8 minutes; commit the
        # records after
    python -m experiments.paper_scale --report-only   # the orderings so far
    python -m experiments.paper_scale --quick     # the test's run (CPU)

Each variant is a row of ``configs/paper_scale/`` (ViT-T/4, the appendix's
CIFAR10 recipe at batch 512, on Fashion-MNIST's 60,000 training images and
the batch data path; its header cites the paper row). A run (variant x
seed) pretrains the row, compiled, in bf16 on CUDA, and reads out its
frozen encoder at the paper's protocol: the linear probe on the features
of all 60,000 training images, tested on the 10,000 test images, a
weighted k-NN and an attentive probe (``randsac_mm.evaluation``; features
extracted on the GPU). ``random`` is the untrained encoder.

The runs go in the plan's order: the variants of the key orderings (random
over raster, squares over patches, blobs over patches, coherent over
shuffled, skip over plain) at every seed first, then the others. A command
runs the runs not yet recorded, in that order: the first, then more while
the next one's estimate fits in what is left of ``--budget-minutes``. Each
run's records (settings, losses, readouts, device, minutes; never its
checkpoints) are copied to ``--records`` (default
``docs/benchmarks/paper_scale/``), to be committed; a run recorded there is
done on any machine. A run interrupted on this machine resumes from its last
checkpoint in ``--work-dir`` (every 10 epochs). The report (``study.md``,
``study.json``, ``study.png``, beside the records) states each ordering with
its seeds, gap and standard error, the paper's figures beside it, and what
did not come out as the paper says.

Speed, for the estimates: the records' own minutes once runs are recorded
on the device; before, the latest row of one run alone on the on-device
path in ``docs/benchmarks/gpu/paper_scale_speed.json`` or
``paper_scale_fit.json`` (the GPU window's speed and fit parts: ``python
-m experiments.benchmarks.paper_scale_speed --device cuda --compile``);
before that, the goal of 30,000 images a second.

The package: ``plan.py`` says what the study compares and in which order
it runs, ``carry.py`` carries a run's records between the work dir and
``--records``, ``estimates.py`` gives the plan's minutes, and ``cli.py``
the command and its course.
"""
from .carry import is_done, keep, recorded_minutes, restore
from .cli import main, parse_args, run_paper_scale
from .estimates import estimates, plan_markdown, run_minutes
from .plan import (
    CONFIGS,
    EVAL_DATA,
    KEY_VARIANTS,
    PAPER_SCALE,
    PROG,
    QUICK,
    plan_runs,
)

__all__ = ['CONFIGS', 'EVAL_DATA', 'KEY_VARIANTS', 'PAPER_SCALE', 'PROG',
           'QUICK', 'estimates', 'is_done', 'keep', 'main', 'parse_args',
           'plan_markdown', 'plan_runs', 'recorded_minutes', 'restore',
           'run_minutes', 'run_paper_scale']
