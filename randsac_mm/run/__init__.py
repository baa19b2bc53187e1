"""What runs a config with mmengine's Runner, for ``tools/train.py``,
``tools/test.py``, ``tools/pretrain_linear_finetune.py`` and the
experiments that train, after :mod:`randsac_mm.cli` has read the arguments
and the config (``cli.run_flags``):

- ``config_kinds``: what kind of config it is (pretraining, classifier,
  segmentor, detector: registered checks), and the one way to find the
  class a config's ``type`` names (``lookup``, ``registered_class``);
- ``preflight``: one function, ``preflight(cfg, purpose)``, that checks a
  config for training or testing and builds the run's parts once
  (``builds``: the first item, the model, the optimizer; ``checks``:
  checkpoints, lengths, batches, logging backends; ``foreign_limits``:
  what other libraries' classes would take in silence);
- ``runner``: the one place a runner is made (``build_runner``):
  mmengine's ``Runner`` handed the preflight's parts, or its
  ``FlexibleRunner`` for a ``strategy``;
- ``distributed``: the process group started before the preflight, and
  multi-process runs on the CPU (gloo);
- ``torchrun``: the launcher ``tools/dist_train.sh`` and
  ``tools/dist_test.sh`` start (``python -m randsac_mm.run.torchrun``):
  one line on Ctrl-C, a stop signal or a lost process;
- ``work_dir_lock``: a work dir held by one run.

Import the module you need (``from randsac_mm.run.runner import
build_runner``): this package imports nothing on import, so that a tool
chooses its device before mmengine and mmcv look at the GPUs.
"""
