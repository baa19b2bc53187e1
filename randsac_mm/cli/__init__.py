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
  folder...), their checks, and ``write_json`` (atomic);
- ``device``: the device a run takes, chosen before torch looks for GPUs
  (``use_device``, ``use_device_or_exit``);
- ``config_kinds``: what kind of config a command was given (pretraining,
  classifier, segmentor, detector: registered checks).

This package imports nothing on import: ``device.use_device`` must run
before torch and mmengine look at the GPUs. What only ``tools/train.py``
and ``tools/test.py`` share (reading a run's config, the checks that build
its parts, the runner) is the internal ``randsac_mm._cli``.
"""
