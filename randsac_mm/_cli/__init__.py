"""Internal: what randsac_mm's command lines (``tools/``, shipped in the
wheel for mim) share. Not a user API: it changes with the tools.

- ``errors``: one line and exit code 2 for a user's mistake (``run_tool``);
- ``args``: argument types and the help format;
- ``config``: reading a run's config and applying the common flags;
- ``config_kinds``: what kind of config a tool was given (registered
  checks);
- ``device``: the device a run takes, chosen before torch looks for GPUs;
- ``distributed``: multi-process runs on the CPU (gloo);
- ``runner``: mmengine's Runner or FlexibleRunner, and the checks before
  building it;
- ``checks``: the checks of a checkpoint a tool is given, against the
  config's model, before anything runs.

This package imports nothing on import: ``device.use_device`` must run
before torch and mmengine look at the GPUs.
"""
