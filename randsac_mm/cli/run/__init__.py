"""What runs mmengine's Runner for ``tools/train.py`` and ``tools/test.py``
(and ``tools/pretrain_linear_finetune.py``), after :mod:`randsac_mm.cli`
has read the arguments and the config (``cli.run_flags``):

- ``preflight``: one function, ``preflight(cfg, purpose)``, that checks a
  config for training or testing and builds the run's parts once;
- ``checks``: what the preflight refuses beside building (a checkpoint
  that does not fit, an evaluator's other ground truth, a batch of one for
  a BatchNorm1d readout, a logging backend that cannot log...);
- ``runner``: the one place a runner is made (``build_runner``):
  mmengine's ``Runner`` handed the preflight's parts, or its
  ``FlexibleRunner`` for a ``strategy``;
- ``distributed``: the process group started before the checks, and
  multi-process runs on the CPU (gloo);
- ``torchrun``: the launcher ``tools/dist_train.sh`` and
  ``tools/dist_test.sh`` start (``python -m randsac_mm.cli.run.torchrun``):
  one line on Ctrl-C or a stop signal.

Import the module you need (``from randsac_mm.cli.run.runner import
build_runner``): this package imports nothing on import, so that a tool
chooses its device before mmengine and mmcv look at the GPUs.
"""
