"""Internal: what ``tools/train.py`` and ``tools/test.py`` share. Not a user
API: it changes with the tools (their public building blocks are
``randsac_mm.cli``).

- ``config``: reading a run's config and applying the common flags;
- ``checks``: what the tools refuse before a run, building the run's
  model and data set once (and a checkpoint against that model);
- ``runner``: mmengine's Runner handed those parts, or its FlexibleRunner;
- ``distributed``: the process group started before the checks, and
  multi-process runs on the CPU (gloo).
"""
