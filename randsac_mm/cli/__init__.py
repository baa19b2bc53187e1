"""The building blocks of randsac_mm's command lines, public: ``tools/``,
the ``experiments`` and a user's own scripts use them to refuse a mistake in
one line (exit code 2, nothing written) rather than a traceback.

- ``errors``: ``UserError``, ``one_line``, ``add_debug_arg``;
- ``run_tool``: how a tool's ``main`` runs: one line and exit 2 for a
  user's mistake (the traceback with ``--debug``), one line for Ctrl-C, a
  stop signal or a lost peer;
- ``args``: argument types (``positive_int``, ``seed_value``...),
  ``--cfg-options`` and the help format;
- ``parser``: ``ToolParser``, an ``argparse`` parser whose path arguments
  are checked before anything is imported;
- ``paths``: the kinds of path argument (config, checkpoint, output
  folder...) and their checks;
- ``device``: the device a run takes, chosen before torch looks for GPUs
  (``use_device``, ``use_device_or_exit``);
- ``config_file``: a config read (``read_config``: a missing or broken
  file is one line), its default work dir, ``--cfg-options`` merged;
- ``run_flags``: the flags training and testing take and the run's config
  they make (``add_common_args``, ``add_train_args``,
  ``load_run_config``: precision, launcher, work dir, resume).

What runs the config is :mod:`randsac_mm.run`, one layer above.

This package imports nothing on import: ``device.use_device`` must run
before torch and mmengine look at the GPUs; a tool imports the modules it
needs.
"""
