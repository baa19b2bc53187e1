"""What runs mmengine's Runner for ``tools/train.py`` and ``tools/test.py``
(and ``tools/pretrain_linear_finetune.py``), after :mod:`randsac_mm.cli`
has read the arguments and the config (``cli.config``):

- ``checks``: what a run refuses before it starts (a checkpoint that does
  not fit, an evaluator's other ground truth, a batch of one for a
  BatchNorm1d readout, a logging backend that cannot log...);
- ``runner``: the model and data set the checks built (``BuiltParts``),
  handed to mmengine's ``Runner``, or its ``FlexibleRunner`` for a
  ``strategy`` (``build_runner``);
- ``distributed``: the process group started before the checks, and
  multi-process runs on the CPU (gloo);
- ``torchrun``: the launcher ``tools/dist_train.sh`` and
  ``tools/dist_test.sh`` start (``python -m randsac_mm.cli.run.torchrun``):
  one line on Ctrl-C or a stop signal.

Import the module you need (``from randsac_mm.cli.run.runner import
build_runner``): this package imports nothing on import, so that a tool
chooses its device before mmengine and mmcv look at the GPUs.
"""
