"""The building blocks of randsac_mm's command lines, public: ``tools/``,
the ``experiments`` and a user's own scripts use them to refuse a mistake in
one line (exit code 2, nothing written) rather than a traceback.

- ``errors``: ``UserError``, ``run_tool`` (one line and exit 2 for a user's
  mistake, the traceback with ``--debug``), ``add_debug_arg``;
- ``args``: argument types (``positive_int``, ``seed_value``...) and the
  help format;
- ``parser``: ``ToolParser``, an ``argparse`` parser whose path arguments
  are checked before anything is imported;
- ``paths``: the kinds of path argument (config, checkpoint, output
  folder...) and their checks;
- ``device``: the device a run takes, chosen before torch looks for GPUs
  (``use_device``, ``use_device_or_exit``);
- ``config_kinds``: what kind of config a command was given (pretraining,
  classifier, segmentor, detector: registered checks);
- ``config_file``: a config read (``read_config``: a missing or broken
  file is one line), its default work dir, ``--cfg-options`` merged;
- ``run_flags``: the flags training and testing take and the run's config
  they make (``add_common_args``, ``add_train_args``,
  ``load_run_config``: precision, launcher, work dir, resume);
- ``builds``: a config's model, optimizer and first item built as a run
  builds them, a key no class takes or a value a class refuses named by
  its place;
- ``foreign_limits``: what other libraries' classes would take in silence,
  checked by name;
- ``work_dir_lock``: a work dir held by one run;
- ``run``: what runs mmengine's Runner (the preflight and its checks, the
  runner, the process group, the torchrun launcher;
  :mod:`randsac_mm.cli.run`).

This package imports nothing on import: ``device.use_device`` must run
before torch and mmengine look at the GPUs; a tool imports the modules it
needs.
"""
